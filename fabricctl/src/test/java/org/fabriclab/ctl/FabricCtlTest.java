package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command-line contracts of the offline verbs: output shapes, exit codes and error messages. */
class FabricCtlTest {
    record Run(int code, String out, String err) {
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
        for (String key : List.of("engine", "switches", "hosts", "pairs", "routingMillis", "edgeForwardingIndex",
                "minChannelLoad", "meanChannelLoad", "sigma4", "maxHops", "meanHops", "unreachablePairs",
                "deadlockFree", "virtualLanes")) {
            assertTrue(r.out().contains("\"" + key + "\":"), key + " missing in " + r.out());
        }
        assertTrue(r.out().contains("\"engine\":\"updn\""));
        assertTrue(r.out().contains("\"pairs\":240"));
        assertTrue(r.out().contains("\"deadlockFree\":true"));
        assertEquals(1, r.out().lines().count(), "one JSON object on one line");
    }

    /** The Angara engine offline: a job's node set, the paper's measures, source routes dumped switch to switch; LFT options refused. */
    @Test
    void torusEnginesRouteAJobsNodesWithSourceRoutes(@TempDir Path dir) throws Exception {
        Path paths = dir.resolve("paths.jsonl");
        Run r = run("route", "--topology", "paper:angara-desmos", "--engine", "torus-bfs", "--nodes", "H[0-3]_[0-1]_0_0_0",
                "--dump-paths", paths.toString(), "--json");
        assertEquals(0, r.code(), r.err());
        for (String key : List.of("\"sourceRouted\":true", "\"torusNodes\":8", "\"pairs\":56", "\"edgeForwardingIndex\":6",
                "\"maxHops\":3", "\"deadlockFree\":true")) {
            assertTrue(r.out().contains(key), key + " missing in " + r.out());
        }
        List<String> lines = Files.readAllLines(paths);
        assertEquals(56, lines.size());
        assertTrue(lines.get(0).startsWith("{\"src\":\"T0_0_0_0\",\"dst\":\"T0_1_0_0\",\"hops\":[{\"node\":\"T0_0_0_0\",\"port\":3}]"),
                lines.get(0));
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
        String efi = "\"edgeForwardingIndex\":";
        assertEquals(generated.out().split(efi)[1].split(",")[0], byNames.out().split(efi)[1].split(",")[0], "the same torus, the same routes");

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
        assertEquals(generated.out().split(efi)[1].split(",")[0], withCoords.out().split(efi)[1].split(",")[0]);

        Files.writeString(coordFile, coords + "rack0-0-0 1 x 0\n");
        Run bad = run("route", "--topology", "file:" + renamedNet, "--engine", "torus-sssp", "--coordinates", coordFile.toString());
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("coords.txt") && bad.err().contains(":26") && bad.err().contains("'x'"), bad.err());
    }

    @Test
    void torusStudyReportsEverySystemTheGroupsAndTheRuntimes() {
        Run r = run("torus-study", "--dimensions", "2", "--systems", "3", "--max-nodes", "16", "--engines", "torus-bfs,torus-sssp", "--json");
        assertEquals(0, r.code(), r.err());
        for (String key : List.of("\"dimensions\":2", "\"systems\":[{\"dims\":", "\"edgeForwardingIndex\":{\"torus-bfs\":",
                "\"groups\":[{\"engine\":\"torus-sssp\",\"relation\":\"less\"", "\"runtimes\":[{\"engine\":\"torus-bfs\",\"fromNodes\":1")) {
            assertTrue(r.out().contains(key), key + " missing in " + r.out());
        }
        assertTrue(r.out().matches("(?s).*\"dims\":\"\\d+x\\d+\".*"), "a torus's sizes as 4x2: " + r.out());
        Run bad = run("torus-study", "--dimensions", "2", "--engines", "torus-sssp");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("torus-bfs first"), bad.err());
    }

    @Test
    void warmupRunsGiveTheSameRoutes() {
        Run cold = run("route", "--topology", "torus:4x4", "--json");
        Run warm = run("route", "--topology", "torus:4x4", "--warmup", "2", "--json");
        assertEquals(0, warm.code(), warm.err());
        assertTrue(warm.out().contains("\"warmupRuns\":2"), warm.out());
        String efi = "\"edgeForwardingIndex\":";
        assertEquals(cold.out().split(efi)[1].split(",")[0], warm.out().split(efi)[1].split(",")[0]);
        assertEquals(2, run("route", "--topology", "torus:4x4", "--warmup", "-1").code());
    }

    @Test
    void timedRunsReportTheirMedianAndFastest() {
        for (String engine : new String[] {"minhop", "torus-sssp"}) {
            Run r = run("route", "--topology", "torus:4x4", "--engine", engine, "--runs", "3", "--json");
            assertEquals(0, r.code(), r.err());
            assertTrue(r.out().contains("\"timedRuns\":3"), r.out());
            double median = Double.parseDouble(r.out().split("\"routingMillis\":")[1].split(",")[0]);
            double fastest = Double.parseDouble(r.out().split("\"routingMillisMin\":")[1].split(",")[0]);
            assertTrue(fastest <= median, r.out());
        }
        Run bad = run("route", "--topology", "torus:4x4", "--runs", "0");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--runs must be 1 or more"), bad.err());
    }

    @Test
    void fallbackEngineIsReportedNotHidden() {
        Run r = run("route", "--topology", "torus:3x3", "--engine", "file", "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"engine\":\"minhop\""), r.out());
        assertTrue(r.out().contains("no LFT dump given"), r.out());
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
        assertTrue(lines.contains("{\"src\":\"A\",\"dst\":\"D\",\"hops\":[{\"node\":\"A\",\"port\":1},"
                + "{\"node\":\"SW1\",\"port\":4},{\"node\":\"SW2\",\"port\":1}]}"), lines.toString());
        Run replay = run("route", "--topology", "paper:ib-ar-c1", "--engine", "file,no_fallback", "--lfts", lfts.toString(), "--json");
        assertEquals(0, replay.code(), replay.err());
        assertTrue(replay.out().contains("\"engine\":\"file\""));
    }

    @Test
    void nodeSetLimitsThePairs() {
        Run r = run("route", "--topology", "fat-tree:k=4,levels=2", "--nodes", "H[0-2]_0", "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"hosts\":3,\"pairs\":6"), r.out());
    }

    @Test
    void guid2lidFileKeepsLidsAcrossRuns(@TempDir Path dir) throws Exception {
        Path g = dir.resolve("guid2lid");
        assertEquals(0, run("route", "--topology", "torus:3x3", "--guid2lid", g.toString()).code());
        String first = Files.readString(g);
        assertTrue(first.startsWith("0x0000000000200000 0x0001 0x0001"), first);
        assertEquals(0, run("route", "--topology", "torus:3x3", "--guid2lid", g.toString()).code());
        assertEquals(first, Files.readString(g));
    }

    @Test
    void topologyPrintsANetFileThatReadsBack(@TempDir Path dir) throws Exception {
        Path net = dir.resolve("c2.net");
        assertEquals(0, run("topology", "--topology", "paper:ib-ar-c2", "-o", net.toString()).code());
        Run r = run("topology", "--topology", "file:" + net, "--format", "summary");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"switches\":6,\"hosts\":12"), r.out());
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
    }

    @Test
    void failedChainExitsOneWithEveryReason() {
        Run r = run("route", "--topology", "torus:3x3", "--engine", "file,no_fallback");
        assertEquals(1, r.code());
        assertTrue(r.err().contains("routing failed: file: no LFT dump given"), r.err());
    }
}
