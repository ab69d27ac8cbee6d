package org.fabriclab.manager.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.FabricViewSource;
import org.fabriclab.manager.MetricsServer;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fabric view's JSON endpoints against a daemon's own state, nothing stood in for: an emulated
 * fabric in this JVM, discovered and routed by a manager, its ports polled by a perf manager (twice
 * by hand, no traffic, so no figure depends on the clock). Shapes, bounds and errors.
 */
class FabricViewTest {
    private static final String SPEC = "rlft:leaves=3,spines=2,hosts=2";
    private static EmulatedFabric emulated;
    private static FabricManager manager;
    private static PerfManager perf;
    private static MetricsServer server;
    private static FabricView view;
    private static FabricManager.Snapshot snapshot;

    @BeforeAll
    static void start() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        emulated = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
        manager = new FabricManager(emulated.endpoint(emulated.hosts().get(0).name()), "minhop", null, registry);
        perf = new PerfManager(manager, registry, 3_600_000);
        snapshot = manager.sweep().get(60, TimeUnit.SECONDS);
        assertEquals(FabricManager.State.UP, snapshot.state(), snapshot.lastError());
        perf.poll();
        perf.poll();
        view = FabricViewSource.view(manager, perf);
        server = new MetricsServer(registry, 0);
        server.serve("/", view);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
        perf.close();
        manager.close();
        emulated.close();
    }

    private static Map<String, Object> get(String path, String query) {
        FabricView.Answer a = view.answer("GET", path, query);
        assertEquals(200, a.status());
        assertTrue(a.type().startsWith("application/json"), a.type());
        return JsonValue.object(new String(a.body(), StandardCharsets.UTF_8));
    }

    @Test
    void fabricDrawsEverySwitchAndLinkAndTheHostsOfASmallFabric() {
        Fabric f = snapshot.discovered().fabric();
        Map<String, Object> all = get("/api/fabric", null);
        assertEquals(true, all.get("hostsShown"));
        assertEquals("tree", all.get("layout"));
        assertEquals("minhop", all.get("engine"));
        assertEquals(5.0, all.get("switchCount"));
        assertEquals(f.nodeCount(), ((List<?>) all.get("names")).size());
        assertEquals(f.nodeCount(), ((List<?>) all.get("x")).size());
        assertEquals(4 * f.linkCount(), ((List<?>) all.get("links")).size());
        assertEquals(f.linkCount(), ((List<?>) all.get("linkKind")).size());
        assertEquals(List.of("host", "leaf-spine"), ((List<?>) all.get("kinds")).stream().sorted().toList());

        Map<String, Object> collapsed = get("/api/fabric", "hosts=0");
        assertEquals(5, ((List<?>) collapsed.get("names")).size());
        assertEquals(4 * 6, ((List<?>) collapsed.get("links")).size()); // 3 leaves x 2 spines
        assertEquals(f.caCount(), Arrays.stream(JsonValue.ints(collapsed.get("hosts"))).sum());
        assertEquals(all.get("version"), collapsed.get("version"));
    }

    @Test
    void loadGivesBothDirectionsOfEveryDrawnLinkInTheFabricsOrder() {
        Map<String, Object> structure = get("/api/fabric", "hosts=0");
        Map<String, Object> load = get("/api/load", "hosts=0");
        assertEquals(structure.get("version"), load.get("version"));
        int[] u = JsonValue.ints(load.get("u"));
        assertEquals(2 * 6, u.length);
        assertTrue(Arrays.stream(u).allMatch(x -> x == 0), "no traffic, every link polled twice: idle, " + Arrays.toString(u));
        assertEquals(5, JsonValue.ints(load.get("hostU")).length);
        assertEquals(List.of(), load.get("congested"));
        assertEquals(List.of(), load.get("top"));
        assertEquals((double) perf.samples().size(), load.get("polled"));
        assertFalse(get("/api/load", null).containsKey("hostU"), "hosts drawn: their links are in u");
    }

    @Test
    void nodeGivesCountersAndTheRoutesOfAPort() {
        Fabric f = snapshot.outcome().fabric();
        ForwardingTables t = snapshot.outcome().tables();
        int leaf = -1;
        for (int v = 0; v < f.nodeCount() && leaf < 0; v++) {
            if (f.isSwitch(v) && f.portCount(v) > 2 && !f.isSwitch(f.peerNode(f.globalPort(v, 1)))) {
                leaf = v;
            }
        }
        String name = f.name(leaf);
        Map<String, Object> node = get("/api/node", "name=" + name);
        assertEquals("switch", node.get("type"));
        assertEquals(1.0, node.get("level"));
        List<?> ports = (List<?>) node.get("ports");
        assertEquals(4, ports.size()); // two hosts, two spines
        int total = 0;
        for (Object o : ports) {
            Map<?, ?> p = (Map<?, ?>) o;
            assertTrue(p.containsKey("xmitBytes") && p.containsKey("u") && p.containsKey("peer"), p.toString());
            assertEquals(0.0, p.get("rcvErrors"), "no frame refused: " + p);
            total += ((Double) p.get("routes")).intValue();
        }
        assertEquals(f.caCount() + f.switchCount() - 1, total, "every LID but the switch's own leaves by a port");

        Map<String, Object> up = get("/api/node", "name=" + name + "&port=3&limit=1");
        Map<?, ?> routes = (Map<?, ?>) up.get("routes");
        int expected = 0;
        for (int lid = 1; lid < t.size(); lid++) {
            expected += t.port(f.switchIndex(leaf), lid) == 3 ? 1 : 0;
        }
        assertEquals((double) expected, routes.get("count"));
        assertEquals(Math.min(1, expected), ((List<?>) routes.get("destinations")).size());
        assertEquals(expected > 1, routes.get("truncated"));

        Map<String, Object> host = get("/api/node", "name=" + f.name(f.endpointNode(0)));
        assertEquals("host", host.get("type"));
        assertEquals((double) t.lids().endpointLid(0), host.get("lid"));
        assertFalse(host.containsKey("routes"));
    }

    @ParameterizedTest(name = "{0} {1}?{2} -> {3}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            "POST|/api/fabric|-|405|read-only",
            "GET|/api/nothing|-|404|no page /api/nothing",
            "GET|/api/fabric|hosts=2|400|hosts is 0",
            "GET|/api/fabric|x=1|400|unknown parameter 'x'",
            "GET|/api/load|hosts=0&hosts=1|400|given twice",
            "GET|/api/node|-|400|needs name=NODE",
            "GET|/api/node|name=nobody|404|no node named 'nobody'",
            "GET|/api/node|name=HOST&port=x|400|port is a port of HOST",
            "GET|/api/node|name=HOST&port=9|400|port is a port of HOST, 1..1",
            "GET|/api/node|name=HOST&limit=-1|400|limit is how many",
            "GET|/api/node|name=%zz|400|malformed query"})
    void badRequestsAreRefusedWithAMessage(String method, String path, String query, int status, String message) {
        String host = snapshot.discovered().fabric().name(snapshot.discovered().fabric().endpointNode(0)); // HOST: a host's name
        String q = query == null ? null : query.replace("HOST", host);
        FabricView.Refused e = assertThrows(FabricView.Refused.class, () -> view.answer(method, path, q));
        assertEquals(status, e.status);
        assertTrue(e.getMessage().contains(message.replace("HOST", host)), e.getMessage());
    }

    @Test
    void overHttpAnOversizedRequestGets400AndAnswersComeGzipped() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://localhost:" + server.port();
        HttpResponse<String> tooLong = http.send(HttpRequest.newBuilder(URI.create(base + "/api/node?name=" + "a".repeat(2000))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, tooLong.statusCode());
        assertEquals("request URI longer than 1024 characters\n", tooLong.body());

        HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("<script src=\"view.js\">"), page.body());
        assertFalse(page.body().contains("http://") || page.body().contains("https://"), "the page fetches nothing from elsewhere");

        HttpResponse<byte[]> zipped = http.send(HttpRequest.newBuilder(URI.create(base + "/view.js")).header("Accept-Encoding", "gzip")
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals("gzip", zipped.headers().firstValue("Content-Encoding").orElse(""));
        assertEquals(new String(view.answer("GET", "/view.js", null).body(), StandardCharsets.UTF_8), gunzip(zipped.body()));

        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(metrics.body().contains("fabric_port_utilisation_ratio"), "/metrics is still served beside the view");
    }

    @Test
    void beforeTheFirstSweepTheDataIsUnavailable() throws Exception {
        try (FabricManager idle = new FabricManager("localhost:1", "minhop", null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
            FabricView early = FabricViewSource.view(idle, null);
            FabricView.Refused e = assertThrows(FabricView.Refused.class, () -> early.answer("GET", "/api/fabric", null));
            assertEquals(503, e.status);
            assertEquals(200, early.answer("GET", "/", null).status());
        }
    }

    @Test
    void aLargeFabricIsDrawnWithItsHostsCollapsedAndNotRoutedYetHasNoRoutes() {
        Fabric big = Topologies.generate("fat-tree:k=18,levels=3");
        FabricView unrouted = new FabricView(() -> new ViewState("ROUTING", big, null, 0), Map::of);
        Map<String, Object> f = JsonValue.object(new String(unrouted.answer("GET", "/api/fabric", null).body(), StandardCharsets.UTF_8));
        assertEquals(false, f.get("hostsShown"));
        assertEquals(false, f.get("hostsDrawable"));
        assertEquals("", f.get("engine"));
        assertEquals(972, ((List<?>) f.get("names")).size());
        FabricView.Refused e = assertThrows(FabricView.Refused.class, () -> unrouted.answer("GET", "/api/load", "hosts=1"));
        assertEquals(400, e.status);
        assertTrue(e.getMessage().startsWith("too many hosts to draw (5832, at most 2048)"), e.getMessage());
        Map<String, Object> load = JsonValue.object(new String(unrouted.answer("GET", "/api/load", null).body(), StandardCharsets.UTF_8));
        assertTrue(Arrays.stream(JsonValue.ints(load.get("u"))).allMatch(u -> u == -1), "nothing polled: every link unknown");
        Map<String, Object> node = JsonValue.object(new String(unrouted.answer("GET", "/api/node", "name=L2_0_0_0&port=1").body(),
                StandardCharsets.UTF_8));
        assertFalse(node.containsKey("routes") || node.containsKey("lid"), node.toString());
        assertEquals(18 + 18, ((List<?>) node.get("ports")).size());
    }

    private static String gunzip(byte[] body) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
