package org.fabriclab.manager.web;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.testkit.Waits;

/**
 * A page in headless chromium driven over the DevTools protocol (a WebSocket, the JDK's client):
 * for what a dumped DOM cannot show, a click. Evaluates expressions in the page and clicks where an
 * element is drawn, with real mouse events at its place; the caller waits on what the page shows
 * with {@link Waits}. The browser runs as {@link HeadlessChromium} runs it (own profile and home in
 * a temporary directory) and is killed, every process of it, on {@link #close}.
 */
final class DevToolsPage implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://[^/\\s]+)/");

    private final Process process;
    private final Path run;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<Map<String, Object>>> answers = new ConcurrentHashMap<>();

    private DevToolsPage(Process process, Path run, WebSocket socket) {
        this.process = process;
        this.run = run;
        this.socket = socket;
    }

    /** Opens {@code url} in a new headless chromium whose files are under {@code dir}. */
    static DevToolsPage open(String url, Path dir) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(HeadlessChromium.BINARY), HeadlessChromium.BINARY + " is needed (Debian package chromium)");
        Path run = Files.createTempDirectory(dir, "chromium-");
        Path err = run.resolve("stderr.txt");
        Process p = HeadlessChromium.start(run, List.of("--remote-debugging-port=0", "--window-size=1600,900", url),
                run.resolve("stdout.txt"), err);
        try {
            String[] endpoint = new String[1];
            Waits.until("chromium's DevTools endpoint is up", () -> {
                Matcher m = LISTENING.matcher(read(err));
                return m.find() && (endpoint[0] = m.group(1)) != null;
            });
            HttpClient http = HttpClient.newHttpClient();
            String http1 = endpoint[0].replace("ws://", "http://");
            String[] page = new String[1];
            Waits.until("chromium lists the page " + url, () -> {
                for (Object o : (List<?>) JsonValue.parse(get(http, http1 + "/json/list"))) {
                    Map<?, ?> target = (Map<?, ?>) o;
                    if ("page".equals(target.get("type")) && String.valueOf(target.get("url")).startsWith(url)) {
                        page[0] = (String) target.get("webSocketDebuggerUrl");
                        return true;
                    }
                }
                return false;
            });
            DevToolsPage[] self = new DevToolsPage[1];
            WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(page[0]), new WebSocket.Listener() {
                private final StringBuilder text = new StringBuilder();

                @Override
                public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                    text.append(data);
                    if (last) {
                        Map<String, Object> message = JsonValue.object(text.toString());
                        text.setLength(0);
                        Object id = message.get("id");
                        if (id != null) {
                            self[0].answers.computeIfAbsent(((Double) id).intValue(), k -> new CompletableFuture<>()).complete(message);
                        }
                    }
                    w.request(1);
                    return null;
                }
            }).join();
            self[0] = new DevToolsPage(p, run, ws);
            return self[0];
        } catch (RuntimeException | Error e) {
            HeadlessChromium.kill(p, run);
            throw e;
        }
    }

    private static String get(HttpClient http, String uri) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(uri)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + uri, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + uri, e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** Sends one DevTools command and returns its {@code result}; fails with the command's error if it has one. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> call(String method, JsonWriter params) {
        int id = ids.incrementAndGet();
        CompletableFuture<Map<String, Object>> answer = answers.computeIfAbsent(id, k -> new CompletableFuture<>());
        socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}", true).join();
        Map<String, Object> message;
        try {
            message = answer.get(HeadlessChromium.LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for chromium's answer to " + method, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("chromium did not answer " + method + " in " + HeadlessChromium.LIMIT_SECONDS + " s", e);
        }
        answers.remove(id);
        assertTrue(!message.containsKey("error"), method + " failed: " + message.get("error"));
        return (Map<String, Object>) message.get("result");
    }

    /** The value of a JavaScript expression in the page (awaited if a promise), as JSON gives it back. */
    Object evaluate(String expression) {
        Map<String, Object> r = call("Runtime.evaluate", new JsonWriter(expression.length() + 64).open().member("expression", expression)
                .member("returnByValue", true).member("awaitPromise", true).close());
        Map<?, ?> value = (Map<?, ?>) r.get("result");
        assertTrue(!r.containsKey("exceptionDetails"), expression + " threw: " + r.get("exceptionDetails"));
        return value.get("value");
    }

    /**
     * Clicks the middle of the first element {@code selector} finds, with the mouse (pressed and
     * released there), and returns the element the click lands on as the page sees it (its
     * {@code outerHTML}'s first 200 characters): what is drawn on top at that point.
     */
    String click(String selector) {
        String find = "document.querySelector(" + quote(selector) + ")";
        List<?> at = (List<?>) evaluate("(() => { const r = " + find + ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()");
        double x = (Double) at.get(0);
        double y = (Double) at.get(1);
        String hit = (String) evaluate("document.elementFromPoint(" + x + "," + y + ").outerHTML.slice(0, 200)");
        for (String type : new String[] {"mousePressed", "mouseReleased"}) {
            call("Input.dispatchMouseEvent", new JsonWriter(128).open().member("type", type).member("x", x).member("y", y)
                    .member("button", "left").member("clickCount", 1).close());
        }
        return hit;
    }

    private static String quote(String s) {
        return new JsonWriter(s.length() + 8).value(s).toString();
    }

    @Override
    public void close() {
        socket.abort();
        HeadlessChromium.kill(process, run);
    }
}
