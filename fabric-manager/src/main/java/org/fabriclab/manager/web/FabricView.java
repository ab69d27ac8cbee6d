package org.fabriclab.manager.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fabric view: a page at {@code /} (plain HTML, CSS and JavaScript from this package's
 * resources, drawn in SVG, nothing fetched from elsewhere) and the read-only JSON it polls, all
 * from the manager's own state: {@code /api/fabric} (what is drawn where, from the discovered
 * fabric), {@code /api/load} (per-link utilisation and congestion, from the perf manager's last
 * poll) and {@code /api/node?name=N[&port=P][&limit=L]} (a node's counters and the routes of its
 * forwarding table). Served on the metrics port, next to {@code /metrics}.
 *
 * <p>Requests are bounded: GET (or HEAD) only, a URI of at most {@link #MAX_URI} characters, known
 * parameters with values in range; anything else is answered 400 (405, 404) with a one-line
 * message, never a stack trace. A failure of the view itself is logged and answered 500. Answers
 * are gzipped when the client accepts it (the 18-ary 3-tree's structure is a few hundred kB).
 */
public final class FabricView implements HttpHandler {
    private static final Logger LOG = LoggerFactory.getLogger(FabricView.class);
    /** The longest request URI answered: a node name and three parameters fit many times over. */
    static final int MAX_URI = 1024;
    /** Hosts are drawn by default up to this many, else collapsed into their switches. */
    static final int HOSTS_SHOWN = 128;
    /** Hosts are drawn on request up to this many: more would not load in a browser in time. */
    static final int MAX_HOSTS_DRAWN = 2048;
    /** Destinations listed for a port when no limit is given. */
    static final int DEFAULT_ROUTES = 200;
    /** The most destinations listed for a port. */
    static final int MAX_ROUTES = 50_000;
    /** The page's files: path, resource, content type. */
    private static final Map<String, String[]> FILES = Map.of(
            "/", new String[] {"index.html", "text/html; charset=utf-8"},
            "/index.html", new String[] {"index.html", "text/html; charset=utf-8"},
            "/view.js", new String[] {"view.js", "text/javascript; charset=utf-8"},
            "/view.css", new String[] {"view.css", "text/css; charset=utf-8"});
    private static final Set<String> HOSTS_PARAMETER = Set.of("hosts");
    private static final Set<String> NODE_PARAMETERS = Set.of("name", "port", "limit");

    private final Supplier<ViewState> states;
    private final Supplier<Map<String, PortReading>> readings;
    private final Map<String, byte[]> files = new HashMap<>();
    /** The pictures of the last fabric seen, with hosts collapsed [0] and drawn [1]; guarded by this. */
    private Fabric pictured;
    private final FabricPicture[] pictures = new FabricPicture[2];
    private long version;

    /**
     * @param states the manager's state, each call a consistent snapshot of it
     * @param readings the perf manager's last poll, by {@link PortReading#key}
     */
    public FabricView(Supplier<ViewState> states, Supplier<Map<String, PortReading>> readings) {
        this.states = states;
        this.readings = readings;
        for (String[] f : FILES.values()) {
            files.computeIfAbsent(f[0], FabricView::resource);
        }
    }

    private static byte[] resource(String name) {
        try (InputStream in = FabricView.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the fabric view's " + name + " is missing from the jar (org/fabriclab/manager/web/)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the fabric view's " + name, e);
        }
    }

    /** A request refused, with the status and the message the client gets. */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    /** The answer to a request: status, content type, body. */
    record Answer(int status, String type, byte[] body) {
        static Answer json(String s) {
            return new Answer(200, "application/json; charset=utf-8", s.getBytes(StandardCharsets.UTF_8));
        }

        static Answer text(int status, String s) {
            return new Answer(status, "text/plain; charset=utf-8", (s + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        Answer a;
        try {
            a = answer(ex.getRequestMethod(), ex.getRequestURI().getRawPath(), ex.getRequestURI().getRawQuery());
        } catch (Refused e) {
            a = Answer.text(e.status, e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("the fabric view failed answering {}", ex.getRequestURI(), e);
            a = Answer.text(500, "the fabric view failed answering this request; the daemon's log has why");
        }
        send(ex, a);
    }

    /** The answer to {@code method rawPath?rawQuery}; throws {@link Refused} for a request it refuses. */
    Answer answer(String method, String rawPath, String rawQuery) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            throw new Refused(405, method + " is not answered here: the fabric view is read-only (GET)");
        }
        if (rawPath.length() + (rawQuery == null ? 0 : rawQuery.length()) > MAX_URI) {
            throw new Refused(400, "request URI longer than " + MAX_URI + " characters");
        }
        String[] file = FILES.get(rawPath);
        if (file != null) {
            return new Answer(200, file[1], files.get(file[0]));
        }
        return switch (rawPath) {
            case "/api/fabric" -> Answer.json(fabric(parameters(rawQuery, HOSTS_PARAMETER)));
            case "/api/load" -> Answer.json(load(parameters(rawQuery, HOSTS_PARAMETER)));
            case "/api/node" -> Answer.json(node(parameters(rawQuery, NODE_PARAMETERS)));
            default -> throw new Refused(404, "no page " + rawPath + " here: the fabric view is at /, its data at /api/fabric, "
                    + "/api/load and /api/node?name=NODE; metrics at /metrics");
        };
    }

    private String fabric(Map<String, String> q) {
        Drawn d = drawn(q);
        ForwardingTables t = d.state.tables();
        return ViewJson.fabric(d.picture, d.version, d.state.state(), t == null ? "" : t.engine());
    }

    private String load(Map<String, String> q) {
        Drawn d = drawn(q);
        return ViewJson.load(d.picture, readings.get(), d.version, d.state.state(), d.state.tableVersion());
    }

    /** The manager's state, the picture of its fabric the query asks for, and that picture's version. */
    private record Drawn(ViewState state, FabricPicture picture, long version) {
    }

    private Drawn drawn(Map<String, String> q) {
        ViewState s = discovered();
        synchronized (this) {
            return new Drawn(s, picture(s, q), version);
        }
    }

    private String node(Map<String, String> q) {
        Drawn d = drawn(Map.of("hosts", "0"));
        FabricPicture p = d.picture;
        String name = q.get("name");
        if (name == null || name.isEmpty()) {
            throw new Refused(400, "/api/node needs name=NODE (a switch or host name as /api/fabric lists it)");
        }
        int v = p.fabric.nodeByName(name).orElseThrow(() -> new Refused(404, "no node named '" + name + "' in the fabric"));
        int ports = p.fabric.portCount(v);
        int port = number(q, "port", 0, 1, ports, "a port of " + name + ", 1.." + ports);
        int limit = number(q, "limit", DEFAULT_ROUTES, 0, MAX_ROUTES, "how many destinations to list, 0.." + MAX_ROUTES);
        return ViewJson.node(p, d.state.tables(), readings.get(), v, port, limit);
    }

    /** The manager's state, if it has discovered a fabric; else 503. */
    private ViewState discovered() {
        ViewState s = states.get();
        if (s.fabric() == null) {
            throw new Refused(503, "no fabric discovered yet (the manager is " + s.state() + "); try again after the first sweep");
        }
        return s;
    }

    /** The picture of the state's fabric, hosts drawn as {@code hosts} asks (default: up to {@link #HOSTS_SHOWN}). */
    private FabricPicture picture(ViewState s, Map<String, String> q) {
        Fabric f = s.fabric();
        String hosts = q.getOrDefault("hosts", "auto");
        boolean drawn = switch (hosts) {
            case "auto" -> f.caCount() <= HOSTS_SHOWN;
            case "0" -> false;
            case "1" -> true;
            default -> throw new Refused(400, "hosts is 0 (collapsed into their switches), 1 (drawn) or auto, not '" + hosts + "'");
        };
        if (drawn && f.caCount() > MAX_HOSTS_DRAWN) {
            throw new Refused(400, "too many hosts to draw (" + f.caCount() + ", at most " + MAX_HOSTS_DRAWN
                    + "): they are shown collapsed into their switches (hosts=0)");
        }
        if (f != pictured) {
            pictured = f;
            pictures[0] = null;
            pictures[1] = null;
            version++;
        }
        int i = drawn ? 1 : 0;
        if (pictures[i] == null) {
            pictures[i] = FabricPicture.of(f, drawn);
        }
        return pictures[i];
    }

    /** Parameter {@code name} as an integer in {@code [min, max]}, {@code absent} if not given. */
    private static int number(Map<String, String> q, String name, int absent, int min, int max, String what) {
        String v = q.get(name);
        if (v == null) {
            return absent;
        }
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new Refused(400, name + " is " + what + ", not '" + v + "'");
    }

    /** The query's parameters, each at most once and each one of {@code known}. */
    static Map<String, String> parameters(String rawQuery, Set<String> known) {
        Map<String, String> out = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name;
            String value;
            try {
                name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new Refused(400, "malformed query (bad %-escape): " + e.getMessage());
            }
            if (!known.contains(name)) {
                throw new Refused(400, "unknown parameter '" + name + "'; this takes " + String.join(", ", known.stream().sorted().toList()));
            }
            if (out.put(name, value) != null) {
                throw new Refused(400, "parameter '" + name + "' given twice");
            }
        }
        return out;
    }

    private static void send(HttpExchange ex, Answer a) throws IOException {
        byte[] body = a.body();
        String accept = ex.getRequestHeaders().getFirst("Accept-Encoding");
        if (accept != null && accept.contains("gzip") && body.length > 1024) {
            ByteArrayOutputStream zipped = new ByteArrayOutputStream(body.length / 4);
            try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
                z.write(body);
            }
            body = zipped.toByteArray();
            ex.getResponseHeaders().add("Content-Encoding", "gzip");
        }
        if (a.status() == 405) {
            ex.getResponseHeaders().add("Allow", "GET, HEAD");
        }
        ex.getResponseHeaders().add("Content-Type", a.type());
        ex.getResponseHeaders().add("Cache-Control", "no-store");
        ex.getResponseHeaders().add("X-Content-Type-Options", "nosniff");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(a.status(), head ? -1 : body.length);
        try (OutputStream o = ex.getResponseBody()) {
            if (!head) {
                o.write(body);
            }
        }
    }
}
