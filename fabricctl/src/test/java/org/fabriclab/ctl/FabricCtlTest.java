package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command-line contracts of the offline verbs: output shapes (JSON parsed, not string-matched), exit codes and error messages. */
class FabricCtlTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Run(int code, String out, String err) {
        /** Standard output as one JSON value. */
        JsonNode json() {
            return parse(out);
        }
    }

    static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FabricCtl.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void routeJsonHasEveryContractField() {
        Run r = run("route", "--topology", "fat-tree:k=4,levels=2", "--engine", "updn", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        for (String key : List.of("engine", "switches", "hosts", "pairs", "routingMillis", "edgeForwardingIndex",
                "minChannelLoad", "meanChannelLoad", "sigma4", "maxHops", "meanHops", "unreachablePairs",
                "deadlockFree", "virtualLanes")) {
            assertTrue(j.has(key), key + " missing in " + r.out());
        }
        assertEquals("updn", j.path("engine").asText());
        assertEquals(240, j.path("pairs").asInt());
        assertTrue(j.path("deadlockFree").asBoolean());
        assertTrue(j.path("routingMillis").isNumber());
        assertEquals(1, r.out().lines().count(), "one JSON object on one line");
    }

    /** The Angara engine offline: a job's node set, the paper's measures, source routes dumped switch to switch; LFT options refused. */
    @Test
    void torusEnginesRouteAJobsNodesWithSourceRoutes(@TempDir Path dir) throws Exception {
        Path paths = dir.resolve("paths.jsonl");
        Run r = run("route", "--topology", "paper:angara-desmos", "--engine", "torus-bfs", "--nodes", "H[0-3]_[0-1]_0_0_0",
                "--dump-paths", paths.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertTrue(j.path("sourceRouted").asBoolean(), r.out());
        assertEquals(8, j.path("torusNodes").asInt());
        assertEquals(56, j.path("pairs").asInt());
        assertEquals(6, j.path("edgeForwardingIndex").asInt());
        assertEquals(3, j.path("maxHops").asInt());
        assertTrue(j.path("deadlockFree").asBoolean());
        List<String> lines = Files.readAllLines(paths);
        assertEquals(56, lines.size());
        JsonNode first = parse(lines.get(0));
        assertEquals("T0_0_0_0", first.path("src").asText());
        assertEquals("T0_1_0_0", first.path("dst").asText());
        assertEquals(parse("[{\"node\":\"T0_0_0_0\",\"port\":3}]"), first.path("hops"), lines.get(0));
        Run bad = run("route", "--topology", "paper:angara-desmos", "--engine", "torus-bfs", "--dump-lfts", dir.resolve("x").toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("source routes"), bad.err());
        Run notTorus = run("route", "--topology", "fat-tree:k=4,levels=2", "--engine", "torus-bfs");
        assertEquals(2, notTorus.code());
        assertTrue(notTorus.err().contains("no torus coordinates"), notTorus.err());
    }

    /**
     * A torus as a net file: routed by its switch names as gen_net.py writes them; renamed, with a
     * coordinates file instead; a malformed coordinates file names the file, line and problem.
     */
    @Test
    void torusNetFilesAreRoutedByNamesOrByACoordinatesFile(@TempDir Path dir) throws Exception {
        Path net = dir.resolve("torus.net");
        assertEquals(0, run("topology", "--topology", "torus:4x3x2", "--format", "net", "-o", net.toString()).code());
        Run byNames = run("route", "--topology", "file:" + net, "--engine", "torus-sssp", "--json");
        assertEquals(0, byNames.code(), byNames.err());
        Run generated = run("route", "--topology", "torus:4x3x2", "--engine", "torus-sssp", "--json");
        assertEquals(generated.json().path("edgeForwardingIndex"), byNames.json().path("edgeForwardingIndex"), "the same torus, the same routes");

        String text = Files.readString(net);
        StringBuilder coords = new StringBuilder("# renamed switches and their places\n");
        for (int x = 0; x < 4; x++) {
            for (int y = 0; y < 3; y++) {
                for (int z = 0; z < 2; z++) {
                    String old = "T" + x + "_" + y + "_" + z;
                    String renamed = "rack" + x + "-" + y + "-" + z;
                    text = text.replace("\"" + old + "\"", "\"" + renamed + "\"");
                    coords.append(renamed).append(' ').append(x).append(' ').append(y).append(' ').append(z).append('\n');
                }
            }
        }
        Path renamedNet = dir.resolve("renamed.net");
        Files.writeString(renamedNet, text);
        Run noCoords = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp");
        assertEquals(2, noCoords.code());
        assertTrue(noCoords.err().contains("coordinates file"), noCoords.err());
        Path coordFile = dir.resolve("coords.txt");
        Files.writeString(coordFile, coords.toString());
        Run withCoords = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp", "--coordinates", coordFile.toString(), "--json");
        assertEquals(0, withCoords.code(), withCoords.err());
        assertEquals(generated.json().path("edgeForwardingIndex"), withCoords.json().path("edgeForwardingIndex"));

        Files.writeString(coordFile, coords + "rack0-0-0 1 x 0\n");
        Run bad = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp", "--coordinates", coordFile.toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("coords.txt") && bad.err().contains(":26") && bad.err().contains("'x'"), bad.err());

        // a switch the fabric does not have is a typo or another fabric's file, not a line to pass over
        Files.writeString(coordFile, coords + "rack9-9-9 1 1 0\n");
        Run unknown = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp", "--coordinates", coordFile.toString());
        assertEquals(2, unknown.code(), unknown.err());
        assertTrue(unknown.err().contains("coords.txt:26: the fabric has no node named rack9-9-9"), unknown.err());
        // bytes that are not UTF-8, in a coordinates file or an LFT dump: the line, exit 2, not the decoder's "Input length = 1"
        Files.write(coordFile, new byte[] {'r', (byte) 0xFF, ' ', '0', '\n'});
        Run binary = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp", "--coordinates", coordFile.toString());
        assertEquals(2, binary.code(), binary.err());
        assertTrue(binary.err().contains("coords.txt:1: column 2: bytes that are not UTF-8"), binary.err());
        Path dump = dir.resolve("bin.lfts");
        Files.write(dump, new byte[] {(byte) 0xFF, '\n'});
        Run binaryDump = run("route", "--topology", "fat-tree:k=2,levels=2", "--engine", "file,no_fallback", "--lfts", dump.toString());
        assertEquals(2, binaryDump.code(), binaryDump.err());
        assertTrue(binaryDump.err().contains("bin.lfts:1: column 1: bytes that are not UTF-8"), binaryDump.err());
    }

    @Test
    void torusStudyReportsEverySystemTheGroupsAndTheRuntimes() {
        Run r = run("torus-study", "--dimensions", "2", "--systems", "3", "--max-nodes", "16", "--engines", "torus-bfs,torus-sssp", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(2, j.path("dimensions").asInt());
        JsonNode system = j.path("systems").path(0);
        assertTrue(system.path("dims").asText().matches("\\d+x\\d+"), "a torus's sizes as 4x2: " + r.out());
        assertTrue(system.path("edgeForwardingIndex").path("torus-bfs").isNumber(), r.out());
        assertEquals("torus-sssp", j.path("groups").path(0).path("engine").asText());
        assertEquals("less", j.path("groups").path(0).path("relation").asText());
        assertEquals("torus-bfs", j.path("runtimes").path(0).path("engine").asText());
        assertEquals(1, j.path("runtimes").path(0).path("fromNodes").asInt());
        Run bad = run("torus-study", "--dimensions", "2", "--engines", "torus-sssp");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("torus-bfs first"), bad.err());
    }

    @Test
    void warmupRunsGiveTheSameRoutes() {
        Run cold = run("route", "--topology", "torus:4x4", "--json");
        Run warm = run("route", "--topology", "torus:4x4", "--warmup-runs", "2", "--json");
        assertEquals(0, warm.code(), warm.err());
        assertEquals("", warm.err());
        assertEquals(2, warm.json().path("warmupRuns").asInt(), warm.out());
        assertEquals(cold.json().path("edgeForwardingIndex"), warm.json().path("edgeForwardingIndex"));
        assertEquals(2, run("route", "--topology", "torus:4x4", "--warmup-runs", "-1").code());

        Run old = run("route", "--topology", "torus:4x4", "--warmup", "2", "--json");
        assertEquals(0, old.code(), old.err());
        assertEquals(2, old.json().path("warmupRuns").asInt(), "the old spelling still counts runs");
        assertEquals("fabricctl route: --warmup is deprecated and goes away in the next release; use --warmup-runs N", old.err().strip());
    }

    @Test
    void timedRunsReportTheirMedianAndFastest() {
        for (String engine : new String[] {"minhop", "torus-sssp"}) {
            Run r = run("route", "--topology", "torus:4x4", "--engine", engine, "--runs", "3", "--json");
            assertEquals(0, r.code(), r.err());
            JsonNode j = r.json();
            assertEquals(3, j.path("timedRuns").asInt(), r.out());
            assertTrue(j.path("routingMillisMin").asDouble() <= j.path("routingMillis").asDouble(), r.out());
        }
        Run bad = run("route", "--topology", "torus:4x4", "--runs", "0");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--runs must be 1..1000, not 0"), bad.err());
    }

    @Test
    void fallbackEngineIsReportedNotHidden() {
        Run r = run("route", "--topology", "torus:3x3", "--engine", "file", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("minhop", r.json().path("engine").asText(), r.out());
        assertTrue(r.json().path("fallbacks").path(0).asText().contains("no LFT dump given"), r.out());
    }

    @Test
    void dumpsPathsAndLftsThatTheFileEngineReplays(@TempDir Path dir) throws Exception {
        Path paths = dir.resolve("paths.jsonl");
        Path lfts = dir.resolve("opensm-lfts.dump");
        Run r = run("route", "--topology", "paper:ib-ar-c1", "--dump-paths", paths.toString(),
                "--dump-lfts", lfts.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        List<String> lines = Files.readAllLines(paths);
        assertEquals(30, lines.size());
        assertTrue(lines.stream().map(FabricCtlTest::parse).anyMatch(p -> p.equals(parse("{\"src\":\"A\",\"dst\":\"D\",\"hops\":"
                + "[{\"node\":\"A\",\"port\":1},{\"node\":\"SW1\",\"port\":4},{\"node\":\"SW2\",\"port\":1}]}"))), lines.toString());
        Run replay = run("route", "--topology", "paper:ib-ar-c1", "--engine", "file,no_fallback", "--lfts", lfts.toString(), "--json");
        assertEquals(0, replay.code(), replay.err());
        assertEquals("file", replay.json().path("engine").asText());
    }

    @Test
    void nodeSetLimitsThePairs() {
        Run r = run("route", "--topology", "fat-tree:k=4,levels=2", "--nodes", "H[0-2]_0", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals(3, r.json().path("hosts").asInt(), r.out());
        assertEquals(6, r.json().path("pairs").asInt(), r.out());
    }

    @Test
    void guid2lidFileKeepsLidsAcrossRuns(@TempDir Path dir) throws Exception {
        Path g = dir.resolve("guid2lid");
        assertEquals(0, run("route", "--topology", "torus:3x3", "--guid2lid", g.toString()).code());
        String first = Files.readString(g);
        assertTrue(first.startsWith("0x0000000000200000 0x0001 0x0001"), first);
        assertEquals(0, run("route", "--topology", "torus:3x3", "--guid2lid", g.toString()).code());
        assertEquals(first, Files.readString(g));
        // a bad line costs that line only, with a warning naming it; the next run writes the file whole again
        Files.writeString(g, first.replace("0x0000000000200000 0x0001 0x0001", "0x0000000000200000 0x0000 0x0000"));
        Run bad = run("route", "--topology", "torus:3x3", "--guid2lid", g.toString());
        assertEquals(0, bad.code(), bad.err());
        assertEquals("fabricctl route: " + g + ":1: LID 0x0000 is not a unicast LID (1..0xbfff); the line is skipped", bad.err().strip());
        assertEquals(first, Files.readString(g), "the switch got LID 1 back, as the lowest free; nothing else moved");
    }

    @Test
    void topologyPrintsANetFileThatReadsBack(@TempDir Path dir) throws Exception {
        Path net = dir.resolve("c2.net");
        assertEquals(0, run("topology", "--topology", "paper:ib-ar-c2", "-o", net.toString()).code());
        Run r = run("topology", "--topology", "file:" + net, "--format", "summary");
        assertEquals(0, r.code(), r.err());
        assertEquals(6, r.json().path("switches").asInt(), r.out());
        assertEquals(12, r.json().path("hosts").asInt(), r.out());
    }

    @Test
    void topologyPrintsAFabricOfSwitchesAloneWhichRouteRefuses(@TempDir Path dir) throws Exception {
        // printing a fabric needs no hosts (the torus study's tori have none); routing one does
        Path net = dir.resolve("ring.net");
        Run printed = run("topology", "--topology", "torus:3x3,hosts=0", "-o", net.toString());
        assertEquals(0, printed.code(), printed.err());
        Run r = run("topology", "--topology", "file:" + net, "--format", "summary");
        assertEquals(0, r.code(), r.err());
        assertEquals(9, r.json().path("switches").asInt(), r.out());
        assertEquals(0, r.json().path("hosts").asInt(), r.out());
        Run route = run("route", "--topology", "torus:3x3,hosts=0");
        assertEquals(2, route.code());
        assertTrue(route.err().contains("hosts is the number of hosts on each switch; give hosts=1 or more"), route.err());
    }

    @Test
    void badInputGetsAClearErrorAndExitCode2(@TempDir Path dir) throws Exception {
        Run spec = run("route", "--topology", "fat-tree:k=4,levls=3");
        assertEquals(2, spec.code());
        assertTrue(spec.err().contains("unknown parameter 'levls'"), spec.err());

        Path bad = dir.resolve("bad.net");
        Files.writeString(bad, "Switch 4 \"S1\"\n[1] \"S2\"[1]\n");
        Run file = run("route", "--topology", "file:" + bad);
        assertEquals(2, file.code());
        assertTrue(file.err().contains(bad + ":2: port 1 of \"S1\" is cabled to unknown node \"S2\""), file.err());

        Run missing = run("topology", "--topology", "file:" + dir.resolve("nope.net"));
        assertEquals(2, missing.code());
        assertTrue(missing.err().contains("nope.net: no such file"), missing.err());

        Run engine = run("route", "--topology", "torus:3x3", "--engine", "bogus");
        assertEquals(2, engine.code());
        assertTrue(engine.err().contains("unknown routing engine 'bogus'; known engines: minhop, updn, file"), engine.err());

        for (String[] args : new String[][] {
            {"route", "--topology", "torus:3x3", "--runs", "many"},
            {"status", "--timeout", "soon"},
            {"topology", "--topology", "torus:3x3", "--format", "xml"},
            {"route", "--topology", "no-such-kind:x=1"},
        }) {
            Run r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().startsWith("fabricctl " + args[0] + ": "), r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());
        }
        assertTrue(run("topology", "--topology", "torus:3x3", "--format", "xml").err().contains("'xml' is not a topology format; use net, summary"));
        // values only the command checks: named with the option, before any routing (a typo of --runs 100000000 routed for days)
        for (String[] args : new String[][] {
            {"--roots", "xyz", "fabricctl: --roots: not a 64-bit hex GUID: 'xyz'; give switch GUIDs"},
            {"--runs", "100000000", "fabricctl: --runs must be 1..1000, not 100000000"},
            {"--warmup-runs", "5000", "fabricctl: --warmup-runs must be 0..1000, not 5000"},
        }) {
            Run r = run("route", "--topology", "torus:3x3", args[0], args[1]);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().startsWith(args[2]), r.err());
        }
        // the daemon verbs' own checks, before any connection: one line, exit 2 (an unresolvable host was exit 3, "not reachable")
        for (String[] args : new String[][] {
            {"job", "route", " ", "fabricctl: job route: the node set is empty; give the job's hosts"},
            {"status", "--timeout", "0", "fabricctl: --timeout must be above 0, not 0"},
            {"status", "--server", "no.such.host.invalid:50051", "fabricctl: --server: host 'no.such.host.invalid' does not resolve"},
            {"status", "--server", "localhost", "fabricctl: --server: 'localhost' is not HOST:PORT"},
            {"status", "--server", "localhost:70000", "fabricctl: --server: 'localhost:70000': port 70000 is not a port; give one of 1..65535"},
            {"status", "--server", "localhost:0", "fabricctl: --server: 'localhost:0': port 0 is not a port"},
            {"status", "--server", "localhost:99999999999999", "fabricctl: --server: 'localhost:99999999999999': port 99999999999999 is not"},
        }) {
            Run r = run(java.util.Arrays.copyOf(args, 3));
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().startsWith(args[3]), r.err());
        }
    }

    /**
     * A port that is not the daemon's admin port: an HTTP/1 server (as the daemon's own metrics port)
     * is named as no gRPC server, and one that takes the connection and never answers runs out the
     * --timeout; both are a daemon not answering, exit 3, with what to check (the first was exit 2,
     * "INTERNAL: HTTP/2: a frame of 3940676 bytes, above the 16384 we allow"; the second exit 2,
     * "DEADLINE_EXCEEDED: deadline of 2.985 s passed").
     */
    @Test
    void aPortThatIsNotTheAdminPortIsSaidToBeSo() throws Exception {
        try (java.net.ServerSocket http = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
             java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread web = new Thread(() -> {
                try (java.net.Socket c = http.accept()) {
                    c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    c.getInputStream().transferTo(java.io.OutputStream.nullOutputStream()); // until the client closes
                } catch (java.io.IOException e) {
                    // the client is gone: nothing left to do
                }
            }, "fake-http1-server");
            web.start();
            Run h = run("status", "--server", "127.0.0.1:" + http.getLocalPort(), "--timeout", "30s");
            assertEquals(3, h.code(), h.err());
            assertEquals(1, h.err().strip().lines().count(), "one line: " + h.err());
            assertTrue(h.err().contains("does not speak HTTP/2, so it is no gRPC server: it answered \"HTTP/1.1 ...\"")
                    && h.err().contains("is --server the daemon's admin port"), h.err());
            web.join();

            Run quiet = run("status", "--server", "127.0.0.1:" + silent.getLocalPort(), "--timeout", "300ms");
            assertEquals(3, quiet.code(), quiet.err());
            assertTrue(quiet.err().startsWith("fabricctl: the fabric manager at 127.0.0.1:" + silent.getLocalPort()
                    + " did not answer within --timeout 300ms"), quiet.err());
        }
    }

    /** The two verbs named route are told apart: the daemon trace needs SRC DST, offline routing --topology, never both. */
    @Test
    void routeSaysWhichModeItIsIn() {
        Run both = run("route", "A", "B", "--topology", "torus:3x3");
        assertEquals(2, both.code());
        assertTrue(both.err().contains("not both"), both.err());
        Run one = run("route", "A");
        assertEquals(2, one.code());
        assertTrue(one.err().contains("fabricctl route SRC DST (through the daemon)"), one.err());
        Run help = run("route", "--help");
        assertTrue(help.out().contains("OFFLINE") && help.out().contains("DAEMON"), help.out());
    }

    /**
     * A Dragonfly engine's report carries its proof over every path its algorithm allows: the
     * 1,056-node system of the Q-adaptive paper with q-adaptive proves deadlock-free on 5 VCs
     * within 5 hops, and the report's deadlockFree, virtualLanes and maxHops are the proof's, not
     * the minimal LFT's (whose longest route is 3 hops on 2 lanes).
     */
    @Test
    void aDragonflyReportCarriesTheProof() {
        Run r = run("route", "--topology", "paper:qadaptive-1056", "--engine", "q-adaptive", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        JsonNode proof = j.path("dragonfly");
        assertEquals("q-adaptive", proof.path("algorithm").asText(), r.out());
        assertEquals(5, proof.path("vcs").asInt());
        assertEquals(5, proof.path("hopBound").asInt());
        assertEquals(5, proof.path("maxHops").asInt());
        assertTrue(proof.path("paths").asLong() > 1_000_000, r.out());
        assertTrue(proof.path("dependencies").asLong() > 0, r.out());
        assertTrue(proof.path("deadlockFree").asBoolean());
        assertEquals(0, proof.path("violations").asLong());
        assertEquals(0, proof.path("examples").size());
        assertEquals(0, proof.path("cycle").size());
        assertEquals(proof.path("deadlockFree"), j.path("deadlockFree"));
        assertEquals(proof.path("vcs"), j.path("virtualLanes"));
        assertEquals(proof.path("maxHops"), j.path("maxHops"));
        assertEquals(3, j.path("hopHistogram").size() - 1, "the minimal LFT's routes are at most 3 hops: " + j.path("hopHistogram"));
        assertEquals(1114080, j.path("pairs").asLong());
        assertEquals(0, j.path("unreachablePairs").asLong());
        assertEquals(0.2, proof.path("parameters").path("alpha").asDouble(), "the paper's defaults");

        // a table engine's report has no proof
        assertTrue(run("route", "--topology", "fat-tree:k=4,levels=2", "--engine", "updn", "--json").json().path("dragonfly").isMissingNode());
    }

    /** {@code --engine-param} reaches the engine (its tables carry the value to the switches); a name or value the chain refuses is bad input. */
    @Test
    void engineParametersReachTheEngineAndBadOnesAreRefused() {
        Run r = run("route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "df-ugaln", "--engine-param", "ugal_threshold=3",
                "--engine-param", "ugal_bias=2", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode params = r.json().path("dragonfly").path("parameters");
        assertEquals(3.0, params.path("ugal_threshold").asDouble(), r.out());
        assertEquals(2, params.path("ugal_bias").asInt(), r.out());
        assertEquals(0.04, params.path("beta").asDouble(), "the rest at their defaults");
        for (String[] args : new String[][] {
            // Q-adaptive's learning rate is no UGAL parameter
            {"route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "df-ugaln", "--engine-param", "alpha=0.3"},
            {"route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "alpha=2"},
            {"route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "foo=1"},
            {"route", "--topology", "fat-tree:k=4,levels=2", "--engine", "updn", "--engine-param", "alpha=0.3"},
        }) {
            Run bad = run(args);
            assertEquals(2, bad.code(), String.join(" ", args) + ": " + bad.err());
            assertEquals(1, bad.err().strip().lines().count(), "one line: " + bad.err());
            assertTrue(bad.err().startsWith("fabricctl: --engine-param"), bad.err());
        }
        assertTrue(run("route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "alpha=2").err()
                .contains("--engine-param for q-adaptive: alpha=2.0 is outside 0..1"));
        assertTrue(run("route", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "foo=1").err()
                .contains("no engine of the chain q-adaptive reads it; they read alpha, beta, epsilon,"));
    }

    @Test
    void failedChainExitsOneWithEveryReason() {
        Run r = run("route", "--topology", "torus:3x3", "--engine", "file,no_fallback");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("routing failed: file: no LFT dump given"), r.err());
    }
}
