package org.fabriclab.manager.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.FabricViewSource;
import org.fabriclab.manager.MetricsServer;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fabric view in a real browser (headless Debian chromium) against a daemon's own state: an
 * emulated fabric in this JVM, discovered and routed by a manager, polled by a perf manager, served
 * by the metrics server. The page shows every switch and link; idle links are drawn idle; once
 * traffic runs and the perf manager has seen it, links are drawn in another colour; a selected link
 * shows its counters and the destinations routed over it; clicks on a switch, a port and a link
 * show theirs. The perf manager is polled by hand, so what the page reads does not change while
 * the browser reads it; no figure depends on the clock, and the clicks' effects are waited for by
 * name.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FabricViewBrowserTest {
    private static final Pattern LINE = Pattern.compile("<line ([^>]*)>");
    private static final Pattern SWITCH = Pattern.compile("<rect [^>]*class=\"switch");
    private static final Pattern ATTRIBUTE = Pattern.compile("([\\w-]+)=\"([^\"]*)\"");
    private static final String IDLE = "#8a96a3";

    private static Fabric topology;
    private static EmulatedFabric fabric;
    private static FabricManager manager;
    private static PerfManager perf;
    private static MetricsServer server;
    private static FabricManager.Snapshot swept;
    private static String url;

    @BeforeAll
    static void start() throws Exception {
        HeadlessChromium.assumeInstalled();
        topology = Topologies.generate("fat-tree:k=4,levels=2");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
        manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", null, registry);
        perf = new PerfManager(manager, registry, 3_600_000);
        server = new MetricsServer(registry, 0);
        swept = manager.sweep().get(60, TimeUnit.SECONDS);
        assertEquals(FabricManager.State.UP, swept.state(), swept.lastError());
        server.serve("/", FabricViewSource.view(manager, perf));
        perf.poll();
        perf.poll();
        url = "http://localhost:" + server.port() + "/";
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {server, perf, manager, fabric}) {
            if (c != null) {
                c.close();
            }
        }
    }

    /** Runs first: the fabric is idle until it starts the traffic. */
    @Test
    @Order(1)
    void pageShowsTheFabricAndLinksChangeColourWhenTrafficStarts(@TempDir Path dir) throws Exception {
        String idle = HeadlessChromium.dumpDom(url, dir);
        assertTrue(idle.contains("data-switches=\"" + topology.switchCount() + "\""), idle);
        assertTrue(idle.contains("data-links=\"" + topology.linkCount() + "\""), idle);
        assertEquals(topology.switchCount(), count(SWITCH, idle), "switches drawn");
        List<Map<String, String>> before = links(idle);
        assertEquals(2 * topology.linkCount(), before.size(), "two halves, one per direction, of every link");
        for (Map<String, String> half : before) {
            assertEquals("0", half.get("data-u"), half.toString());
            assertEquals(IDLE, half.get("stroke"), half.toString());
        }

        fabric.startTraffic(TrafficPattern.UNIFORM, 1, 2048, 0, swept.outcome().tables());
        Waits.until("the perf manager saw traffic on a link, at the view's resolution (1 ppm)", () -> {
            perf.poll(); // the last poll is what the page reads: no other poll runs
            return perf.samples().stream().anyMatch(x -> x.utilisation() >= 1e-6);
        });
        String leafUp = firstLoadedPort(swept.outcome().fabric(), perf);
        String busy = HeadlessChromium.dumpDom(url + "#link=" + leafUp, dir);
        List<Map<String, String>> after = links(busy);
        assertEquals(before.size(), after.size());
        long coloured = after.stream().filter(h -> Integer.parseInt(h.get("data-u")) > 0 && !h.get("stroke").equals(IDLE)).count();
        assertTrue(coloured > 0, "some link drawn in a colour of load:\n" + busy);
        // the selected link: both directions' counters and the destinations routed over it
        String details = busy.substring(busy.indexOf("<section id=\"details\""), busy.indexOf("</section>", busy.indexOf("<section id=\"details\"")));
        assertTrue(details.contains("data-link="), details);
        assertTrue(details.contains(leafUp.replace(":", " port ") + " out"), details);
        assertTrue(details.matches("(?s).*\\d+ destinations? routed out of port \\d+.*"), details);
    }

    /**
     * Clicks with the mouse (over the DevTools protocol): on a switch, its ports with their counters
     * and route counts; on one of its port rows, the destinations routed out of that port; on a
     * link, both directions.
     */
    @Test
    @Order(2)
    void clickingASwitchAPortOrALinkShowsItsCountersAndRoutes(@TempDir Path dir) throws Exception {
        try (DevToolsPage page = DevToolsPage.open(url, dir)) {
            Waits.until("the page drew every switch", () -> ((Double) page.evaluate("document.querySelectorAll('rect.switch').length"))
                    .intValue() == topology.switchCount());
            String name = (String) page.evaluate("view.fabric.names[0]");
            String hit = page.click("rect.switch[data-node=\"0\"]");
            assertTrue(hit.contains("data-node=\"0\""), "the switch is on top where it is drawn: " + hit);
            Waits.until("the details of the switch clicked", () -> name.equals(page.evaluate("document.getElementById('details').dataset.node || ''")));
            String ports = (String) page.evaluate("document.getElementById('details').innerText");
            assertTrue(ports.contains("routes") && ports.contains("util"), ports);

            page.click("#details tr.port");
            Waits.until("the routes of the port clicked", () -> ((String) page.evaluate("document.getElementById('details').innerText"))
                    .matches("(?s).*\\d+ destinations? routed out of port 1.*"));

            String link = page.click("line.link[data-dir=\"0\"]");
            Matcher clicked = Pattern.compile("data-link=\"(\\d+)\"").matcher(link);
            assertTrue(clicked.find(), "a link is on top at the middle of its first half: " + link);
            Waits.until("the details of the link clicked", () -> clicked.group(1).equals(page.evaluate("document.getElementById('details').dataset.link || ''")));
            String both = (String) page.evaluate("document.getElementById('details').innerText");
            assertEquals(2, both.split(" out\n", -1).length - 1, "both directions of the link: " + both);
        }
    }

    /** A switch's port that carried traffic in the last interval, as {@code NAME:PORT}. */
    private static String firstLoadedPort(Fabric f, PerfManager perf) {
        return perf.samples().stream().filter(x -> x.utilisation() > 0 && f.nodeByName(x.node()).map(f::isSwitch).orElse(false))
                .map(x -> x.node() + ":" + x.port()).findFirst().orElseThrow();
    }

    private static int count(Pattern p, String dom) {
        int n = 0;
        for (Matcher m = p.matcher(dom); m.find(); ) {
            n++;
        }
        return n;
    }

    /** Every drawn link direction's attributes. */
    private static List<Map<String, String>> links(String dom) {
        List<Map<String, String>> out = new ArrayList<>();
        for (Matcher m = LINE.matcher(dom); m.find(); ) {
            Map<String, String> attributes = new HashMap<>();
            for (Matcher a = ATTRIBUTE.matcher(m.group(1)); a.find(); ) {
                attributes.put(a.group(1), a.group(2));
            }
            if (attributes.getOrDefault("class", "").startsWith("link")) {
                out.add(attributes);
            }
        }
        return out;
    }
}
