package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.assertSameSimulation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.fabriclab.emulator.SimCommandTest.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * {@code emulator sweep} as a user runs it: two engines by three loads on a small dragonfly under
 * adversarial traffic, its JSON (every point the report {@code emulator sim} gives for the same
 * options), its SVG (three plots, a line per engine in each), the same results on one thread as
 * on three, and bad options refused before anything runs.
 */
class SweepCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPOLOGY = "dragonfly:p=2,a=4,h=2";
    private static final List<String> ENGINES = List.of("minhop", "updn");
    private static final double[] LOADS = {0.1, 0.4, 0.7};

    private static Run run(String... args) {
        return SimCommandTest.run(args);
    }

    private static String[] sweep(String... more) {
        return SimCommandTest.concat(new String[] {"sweep", "--topology", TOPOLOGY, "--engines", String.join(",", ENGINES), "--pattern",
            "adv+1", "--loads", "0.1:0.7:0.3", "--duration", "10us", "--link-latency", "50ns"}, more);
    }

    @Test
    void theJsonHasEveryPointAsEmulatorSimReportsIt(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("sweep.json");
        Run r = run(sweep("--threads", "2", "--json", "--out", out.toString()));
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(j, JSON.readTree(Files.readString(out)), "--out holds the report printed");
        assertEquals(TOPOLOGY, j.path("topology").asText());
        assertEquals("group-shift", j.path("pattern").asText(), "adv+1 is group-shift");
        assertEquals(72, j.path("hosts").asInt());
        JsonNode o = j.path("options");
        assertEquals(10_000, o.path("durationNs").asLong());
        assertEquals(2_000, o.path("warmupNs").asLong());
        assertEquals(50, o.path("linkLatencyNs").asLong());
        assertEquals(256, o.path("payloadBytes").asInt());
        assertEquals(293, o.path("packetBytes").asInt());
        assertEquals(1, o.path("seed").asLong());
        assertEquals(JSON.valueToTree(LOADS), j.path("loads"), "0.1:0.7:0.3 is 0.1, 0.4, 0.7 exactly");
        JsonNode engines = j.path("engines");
        assertEquals(ENGINES.size(), engines.size());
        for (int e = 0; e < ENGINES.size(); e++) {
            JsonNode curve = engines.get(e);
            assertEquals(ENGINES.get(e), curve.path("engine").asText());
            assertEquals(LOADS.length, curve.path("points").size());
            for (int l = 0; l < LOADS.length; l++) {
                JsonNode p = curve.path("points").get(l);
                String where = ENGINES.get(e) + " at " + LOADS[l];
                assertEquals(LOADS[l], p.path("load").asDouble(), where);
                assertTrue(p.path("saturated").isBoolean(), where);
                Run sim = run("sim", "--topology", TOPOLOGY, "--engine", ENGINES.get(e), "--pattern", "adv+1", "--load",
                        Double.toString(LOADS[l]), "--duration", "10us", "--link-latency", "50ns", "--json");
                assertEquals(0, sim.code(), sim.err());
                ObjectNode point = p.deepCopy();
                point.remove(List.of("load", "saturated"));
                assertSameSimulation(sim.json(), point, where + ": the point is emulator sim's report");
            }
        }
        JsonNode light = engines.get(0).path("points").get(0);
        assertFalse(light.path("saturated").asBoolean(), "0.1 is carried: " + light);
        JsonNode heavy = engines.get(0).path("points").get(2);
        assertTrue(heavy.path("saturated").asBoolean(), "minimal routing squeezes adv+1 onto one global link per group pair: " + heavy);
        assertTrue(r.err().contains("emulator sweep: 2 engines x 3 loads = 6 points on 2 threads"), r.err());
        assertTrue(r.err().contains("emulator sweep: routed minhop in ") && r.err().contains("emulator sweep: 6/6 "), r.err());
    }

    /** The results are the grid's, not the scheduler's: one thread and three give the same report, value for value. */
    @Test
    void theResultsAreTheSameOnAnyNumberOfThreads() {
        Run one = run(sweep("--threads", "1", "--json"));
        Run three = run(sweep("--threads", "3", "--json"));
        assertEquals(0, one.code(), one.err());
        assertEquals(0, three.code(), three.err());
        assertEquals(1, one.json().path("threads").asInt());
        assertEquals(3, three.json().path("threads").asInt());
        ObjectNode a = one.json().deepCopy();
        ObjectNode b = three.json().deepCopy();
        a.remove("threads");
        b.remove("threads");
        assertSameSimulation(a, b, "one thread against three");
    }

    @Test
    void theSvgHasThreePlotsWithALinePerEngine(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("sweep.svg");
        Run r = run(sweep("--svg", svg.toString()));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("minhop") && r.out().contains("saturated"), "a table without --json: " + r.out());
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document doc = f.newDocumentBuilder().parse(svg.toFile());
        Element root = doc.getDocumentElement();
        assertEquals("svg", root.getLocalName());
        assertEquals("http://www.w3.org/2000/svg", root.getNamespaceURI());
        NodeList groups = root.getElementsByTagName("g");
        int plots = 0;
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (!g.getAttribute("class").equals("plot")) {
                continue;
            }
            plots++;
            NodeList paths = g.getElementsByTagName("path");
            int curves = 0;
            for (int k = 0; k < paths.getLength(); k++) {
                Element p = (Element) paths.item(k);
                if (p.getAttribute("class").equals("curve")) {
                    assertEquals(ENGINES.get(curves), p.getAttribute("data-engine"), "one line per engine, in order");
                    assertTrue(p.getAttribute("d").startsWith("M"), p.getAttribute("d"));
                    curves++;
                }
            }
            assertEquals(ENGINES.size(), curves, g.getAttribute("data-plot") + ": one line per engine");
            NodeList texts = g.getElementsByTagName("text");
            assertTrue(texts.getLength() >= 8, "tick labels and axis labels: " + texts.getLength());
            assertTrue(text(texts).contains("offered load"), "x axis label");
            NodeList dots = g.getElementsByTagName("circle");
            int saturated = 0;
            for (int k = 0; k < dots.getLength(); k++) {
                saturated += ((Element) dots.item(k)).getAttribute("class").contains("saturated") ? 1 : 0;
            }
            assertTrue(saturated > 0 || g.getAttribute("data-plot").equals("latency") || g.getAttribute("data-plot").equals("hops"),
                    "a saturated point is drawn as such in " + g.getAttribute("data-plot"));
        }
        assertEquals(3, plots);
        String all = text(root.getElementsByTagName("text"));
        for (String label : new String[] {"mean packet latency (us, log)", "throughput (of link rate)", "mean hops", "minhop", "updn",
            "saturated (load not carried)"}) {
            assertTrue(all.contains(label), label + " in " + all);
        }
    }

    @Test
    void badOptionsAreRefusedBeforeAnythingRuns(@TempDir Path dir) {
        String[][] bad = {
            {"--engines", "minhop,nosuch", "unknown routing engine 'nosuch'"},
            {"--engines", "minhop,minhop", "names an engine twice"},
            {"--loads", "0:0.5:0.1", "the load 0, outside (0, 1]"},
            {"--loads", "0.5:1.2:0.1", "the load 1.1, outside (0, 1]"},
            {"--loads", "0.1:0.9", "is not a range of loads; write START:STOP:STEP"},
            {"--loads", "0.9:0.1:0.1", "it needs START <= STOP and a STEP above 0"},
            {"--loads", "0.1:0.9:0", "it needs START <= STOP and a STEP above 0"},
            {"--loads", "0.1,x", "'x' is not a number"},
            {"--loads", "0.1:0.9:0.00001", "more than 1000 loads"},
            {"--pattern", "adv+9", "'adv+9' does not fit the fabric"},
            {"--threads", "0", "--threads': 0 is not a number of threads"},
            {"--packet-bytes", "20", "--packet-bytes': 20 is outside 37"},
            {"--svg", dir.resolve("no/such/dir/x.svg").toString(), "cannot be written"},
        };
        for (String[] b : bad) {
            List<String> args = new ArrayList<>(List.of("sweep", "--topology", TOPOLOGY, "--duration", "10us"));
            for (String[] option : new String[][] {{"--engines", "minhop"}, {"--loads", "0.5"}}) {
                if (!option[0].equals(b[0])) { // the option under test once, with its bad value
                    args.addAll(List.of(option));
                }
            }
            args.addAll(List.of(b[0], b[1]));
            assertRefused(run(args.toArray(String[]::new)), "emulator sweep", b[2]);
        }
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--loads", "0.5"), "emulator sweep", "Missing required option: '--engines");
        Run cannot = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop,ar-tree", "--loads", "0.5", "--duration", "10us");
        assertEquals(1, cannot.code(), "an engine that cannot route the fabric fails the sweep, no fallback: " + cannot.err());
        assertTrue(cannot.err().contains("emulator sweep: routing failed: ar-tree: "), cannot.err());
        assertFalse(cannot.err().contains("/2 "), "nothing simulated: " + cannot.err());
    }

    /**
     * A file the permission bits call writable but that cannot be created (root on /proc) is refused
     * before the sweep runs, not after it; a file that can be created is checked and then written.
     */
    @Test
    void anOutputThatCannotBeCreatedIsRefusedBeforeTheSweep(@TempDir Path dir) {
        Path plot = dir.resolve("plot.svg");
        Run fine = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.5", "--duration", "10us",
                "--svg", plot.toString());
        assertEquals(0, fine.code(), fine.err());
        assertTrue(Files.exists(plot), "checked, then written: " + plot);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "a Linux /proc");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.5", "--duration", "10us",
                "--svg", "/proc/fabriclab-sweep.svg"), "emulator sweep", "cannot be written");
    }

    /** {@code --routing R1,R2}, the spelling, is {@code --engines} with a warning. */
    @Test
    void routingIsTheOldSpellingOfEngines() {
        Run now = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--duration", "10us", "--json");
        Run old = run("sweep", "--topology", TOPOLOGY, "--routing", "minhop", "--loads", "0.3", "--duration", "10us", "--json");
        assertEquals(0, old.code(), old.err());
        assertTrue(old.err().contains("emulator sweep: --routing is deprecated and goes away in the next release; use --engines"), old.err());
        assertFalse(now.err().contains("deprecated"), now.err());
        assertSameSimulation(now.json(), old.json(), "--routing against --engines");
        Run both = run("sweep", "--topology", TOPOLOGY, "--routing", "minhop", "--engines", "updn", "--loads", "0.3");
        assertEquals(2, both.code(), both.err());
        assertTrue(both.err().contains("emulator sweep: --engines and --routing (its old spelling) both name the engines"), both.err());
    }

    /** An engine that learns needs longer to settle: its points can have a duration and warm-up of their own. */
    @Test
    void anEngineCanHaveADurationAndWarmUpOfItsOwn() throws Exception {
        Run r = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop,updn", "--loads", "0.3", "--duration", "10us",
                "--engine-duration", "updn=20us", "--engine-warmup", "updn=15us", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode curves = JSON.readTree(r.out()).get("engines");
        assertEquals(10_000, curves.get(0).get("points").get(0).get("simulatedNs").asLong(), "minhop: --duration");
        assertEquals(20_000, curves.get(1).get("points").get(0).get("simulatedNs").asLong(), "updn: its own");
        assertEquals(15_000, curves.get(1).get("warmupNs").asLong());
        // the same point as emulator sim with that duration and warm-up
        Run sim = run("sim", "--topology", TOPOLOGY, "--engine", "updn,no_fallback", "--load", "0.3", "--duration", "20us", "--warmup",
                "15us", "--json");
        assertEquals(JSON.readTree(sim.out()).get("throughput"), curves.get(1).get("points").get(0).get("throughput"));
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--engine-duration", "updn=1ms"),
                "emulator sweep", "Invalid value for option '--engine-duration': updn is not one of the engines swept");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--engine-duration", "minhop=5"),
                "emulator sweep", "Invalid value for option '--engine-duration': minhop=5");
    }

    /**
     * {@code --until-steady} in a sweep: each point ends its warm-up when steady, its engine's
     * warm-up the cap, its windows a tenth of its own measured window; each point as {@code emulator sim}
     * reports it with the option.
     */
    @Test
    void eachPointOfASweepCanEndItsWarmUpWhenSteady() throws Exception {
        Run r = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop,updn", "--loads", "0.3", "--duration", "60us", "--warmup",
                "50us", "--engine-duration", "updn=140us", "--engine-warmup", "updn=120us", "--until-steady", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode report = JSON.readTree(r.out());
        assertEquals(0.05, report.get("options").get("untilSteady").asDouble());
        JsonNode curves = report.get("engines");
        assertEquals(1_000, curves.get(0).get("steadyWindowNs").asLong(), "a tenth of minhop's 10 us measured");
        assertEquals(2_000, curves.get(1).get("steadyWindowNs").asLong(), "a tenth of updn's 20 us measured");
        JsonNode p = curves.get(1).get("points").get(0);
        assertTrue(p.get("steady").asBoolean() && p.get("steadyAtNs").asLong() < 120_000, p.toString());
        assertEquals(p.get("steadyAtNs").asLong() + 20_000, p.get("simulatedNs").asLong());
        assertTrue(r.err().contains("steady at "), r.err());
        Run sim = run("sim", "--topology", TOPOLOGY, "--engine", "updn,no_fallback", "--load", "0.3", "--duration", "140us", "--warmup",
                "120us", "--until-steady", "--json");
        for (String field : new String[] {"throughput", "latencyMeanNs", "steadyAtNs", "warmupNs", "simulatedNs", "events"}) {
            assertEquals(JSON.readTree(sim.out()).get(field), p.get(field), field);
        }
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--until-steady", "2"),
                "emulator sweep", "'--until-steady': 2.0 is not a tolerance in (0, 1)");
        assertEquals(0.02, report.get("options").get("steadyDrift").asDouble(), "the drift test's tolerance, by default");
        // --steady-drift 0: the band alone, which calls the same point steady sooner (ten windows, not twenty)
        Run band = run("sweep", "--topology", TOPOLOGY, "--engines", "updn", "--loads", "0.3", "--duration", "140us", "--warmup", "120us",
                "--until-steady", "--steady-drift", "0", "--json");
        assertEquals(0, band.code(), band.err());
        JsonNode b = JSON.readTree(band.out());
        assertEquals(0.0, b.get("options").get("steadyDrift").asDouble());
        assertTrue(b.get("engines").get(0).get("points").get(0).get("steadyAtNs").asLong() < p.get("steadyAtNs").asLong(), b.toString());
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--steady-drift", "0.01"),
                "emulator sweep", "--steady-drift is a tolerance of --until-steady's test: give --until-steady too");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--until-steady", "--steady-drift", "1.5"),
                "emulator sweep", "'--steady-drift': 1.5 is not a tolerance in [0, 1)");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--duration", "60us", "--warmup", "50us",
                "--until-steady", "--steady-window", "3us"), "emulator sweep", "minhop's steady-state test needs 20 windows of 3000 ns");
        Run ten = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--duration", "60us", "--warmup", "50us",
                "--until-steady", "--steady-window", "3us", "--steady-drift", "0", "--json");
        assertEquals(0, ten.code(), "the band alone needs ten: " + ten.err());
    }

    /** {@code --until-precise} in a sweep: the option in the report, each point's intervals, progress; refusals before routing. */
    @Test
    void eachPointOfASweepCanEndWhenPrecise() throws Exception {
        Run r = run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--duration", "100us", "--warmup", "20us",
                "--until-precise", "0.02", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode report = JSON.readTree(r.out());
        assertEquals(0.02, report.get("options").get("untilPrecise").asDouble());
        JsonNode p = report.get("engines").get(0).get("points").get(0);
        assertTrue(p.get("precise").asBoolean(), p.toString());
        assertEquals(p.get("simulatedNs").asLong() - 20_000, p.get("batches").asLong() * p.get("batchNs").asLong(), p.toString());
        assertTrue(r.err().contains("precise at "), r.err());
        assertFalse(JSON.readTree(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--duration", "100us",
                "--json").out()).get("options").has("untilPrecise"), "absent without the option");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop", "--loads", "0.3", "--until-precise", "1.5"),
                "emulator sweep", "'--until-precise': 1.5 is not a precision in (0, 1)");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop,updn", "--loads", "0.3", "--duration", "100us",
                "--warmup", "90us", "--engine-duration", "updn=1000ns", "--engine-warmup", "updn=990ns", "--until-precise"),
                "emulator sweep", "--until-precise needs 20 batches within the measured window of updn (10 ns");
    }

    /** An engine parameter is taken when one engine of the sweep reads it, and goes to the engines that do. */
    @Test
    void engineParametersGoToTheEnginesThatReadThem() throws Exception {
        Run r = run("sweep", "--topology", TOPOLOGY, "--engines", "df-min,q-adaptive", "--loads", "0.2", "--duration", "10us", "--vls",
                "5", "--engine-param", "alpha=0.5", "--json");
        assertEquals(0, r.code(), r.err());
        Run sim = run("sim", "--topology", TOPOLOGY, "--engine", "q-adaptive,no_fallback", "--load", "0.2", "--duration", "10us", "--vls",
                "5", "--engine-param", "alpha=0.5", "--json");
        assertEquals(JSON.readTree(sim.out()).get("latencyMeanNs"),
                JSON.readTree(r.out()).get("engines").get(1).get("points").get(0).get("latencyMeanNs"));
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "minhop,updn", "--loads", "0.2", "--engine-param", "alpha=0.5"),
                "emulator sweep", "--engine-param alpha: no engine of the chain minhop,updn reads it");
        assertRefused(run("sim", "--topology", TOPOLOGY, "--engine", "q-adaptive", "--vls", "5", "--engine-param", "alpha=2"),
                "emulator sim", "alpha=2.0 is outside 0..1");
    }

    private static String text(NodeList nodes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < nodes.getLength(); i++) {
            sb.append(nodes.item(i).getTextContent()).append('|');
        }
        return sb.toString();
    }
}
