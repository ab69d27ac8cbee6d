package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.concat;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.emulator.SimCommandTest.Run;
import org.fabriclab.routing.format.QTableSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code emulator sim --qtable-seed} and {@code --save-qtables} (issue 17): where Q-adaptive's
 * learning starts, and what it learnt, as the daemon's snapshot files. A run of 1 ns changes no
 * Q-value (no packet reaches a second router by then, so no feedback arrives), so what it saves is
 * what it started from.
 */
class QTableSeedTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPOLOGY = "dragonfly:p=1,a=4,h=1";
    private static final String[] SIM = {"sim", "--topology", TOPOLOGY, "--engine", "q-adaptive", "--vls", "5", "--pattern", "adv+1",
        "--load", "0.4", "--json"};
    private static final String[] START = {"--duration", "1ns", "--warmup", "0ns"};

    @TempDir
    Path dir;

    /** Runs {@code SIM} with {@code more}, expecting success. */
    private static Run sim(String... more) {
        Run r = run(concat(SIM, more));
        assertEquals(0, r.code(), r.err());
        return r;
    }

    private static QTableSnapshot read(Path file) throws Exception {
        return QTableSnapshot.read(file, file.toString());
    }

    private static void assertSameTables(QTableSnapshot want, QTableSnapshot got, String what) {
        assertEquals(want.fabric(), got.fabric(), what + ": the fabric");
        for (int s = 0; s < want.fabric().switches(); s++) {
            assertEquals(want.table(s), got.table(s), what + ": switch " + s);
        }
    }

    @Test
    void aSavedRunSeedsTheNextOneWithExactlyItsValues() throws Exception {
        Path learnt = dir.resolve("learnt.qts");
        Path seed = dir.resolve("seed.qts");
        Path again = dir.resolve("again.qts");
        sim("--duration", "20us", "--save-qtables", learnt.toString());
        sim(concat(START, "--save-qtables", seed.toString()));
        sim(concat(START, "--qtable-seed", "snapshot:" + learnt, "--save-qtables", again.toString()));
        QTableSnapshot l = read(learnt);
        QTableSnapshot s = read(seed);
        assertNotEquals(Arrays.toString(s.table(0).values()), Arrays.toString(l.table(0).values()),
                "20 us of ADV+1 moved the source routers' values from the minimal seed");
        assertSameTables(l, read(again), "a run seeded from a snapshot starts from its values");
        // the daemon numbers switches in GUID order: the generator's are in that order, so the same
        // topology spec gives the daemon's fingerprint and its snapshots fit both ways
        long[] guids = l.fabric().guids();
        for (int k = 1; k < guids.length; k++) {
            assertTrue(Long.compareUnsigned(guids[k - 1], guids[k]) < 0, "switch " + k + " in GUID order");
        }
        // and the seeded run goes on from there: not the run from the minimal seed
        JsonNode fresh = JSON.readTree(sim("--duration", "20us").out());
        JsonNode seeded = JSON.readTree(sim("--duration", "20us", "--qtable-seed", "snapshot:" + learnt).out());
        assertNotEquals(fresh.get("latencyMeanNs"), seeded.get("latencyMeanNs"));
    }

    @Test
    void valuesWrittenInTheFormatAreTheSimulatorsAndBack() throws Exception {
        Path seed = dir.resolve("seed.qts");
        sim(concat(START, "--save-qtables", seed.toString()));
        QTableSnapshot minimal = read(seed);
        List<QTableSnapshot.Table> tables = new ArrayList<>();
        for (int s = 0; s < minimal.fabric().switches(); s++) {
            QTableSnapshot.Table t = minimal.table(s);
            float[] v = new float[t.values().length];
            for (int i = 0; i < v.length; i++) {
                v[i] = s * 1000 + i * 0.25f;
            }
            tables.add(new QTableSnapshot.Table(t.rows(), t.columnPorts(), v));
        }
        QTableSnapshot mine = new QTableSnapshot(1, minimal.fabric(), tables);
        Path in = dir.resolve("mine.qts");
        Path out = dir.resolve("out.qts");
        Files.write(in, mine.write());
        sim(concat(START, "--qtable-seed", "snapshot:" + in, "--save-qtables", out.toString()));
        assertSameTables(mine, read(out), "the simulator installs a snapshot's values as they are, and saves them so");
    }

    @Test
    void zeroStartsFromNothingAndRunsDifferentlyFromMinimal() throws Exception {
        Path zero = dir.resolve("zero.qts");
        Path minimal = dir.resolve("minimal.qts");
        sim(concat(START, "--qtable-seed", "zero", "--save-qtables", zero.toString()));
        sim(concat(START, "--qtable-seed", "minimal", "--save-qtables", minimal.toString()));
        QTableSnapshot z = read(zero);
        for (int s = 0; s < z.fabric().switches(); s++) {
            for (float v : z.table(s).values()) {
                assertEquals(0f, v, "switch " + s);
            }
        }
        assertTrue(read(minimal).table(0).values()[read(minimal).table(0).values().length - 1] > 0, "minimal: times to other groups");
        JsonNode byDefault = JSON.readTree(sim("--duration", "20us").out());
        JsonNode m = JSON.readTree(sim("--duration", "20us", "--qtable-seed", "minimal").out());
        JsonNode zr = JSON.readTree(sim("--duration", "20us", "--qtable-seed", "zero").out());
        assertEquals(byDefault.get("latencyMeanNs"), m.get("latencyMeanNs"), "minimal is the default");
        assertNotEquals(m.get("latencyMeanNs"), zr.get("latencyMeanNs"));
    }

    @Test
    void aSweepTakesTheSameSeed() throws Exception {
        Path learnt = dir.resolve("learnt.qts");
        sim("--duration", "20us", "--save-qtables", learnt.toString());
        Run sweep = run("sweep", "--topology", TOPOLOGY, "--engines", "q-adaptive", "--vls", "5", "--pattern", "adv+1", "--loads", "0.4",
                "--duration", "20us", "--qtable-seed", "snapshot:" + learnt, "--json");
        assertEquals(0, sweep.code(), sweep.err());
        JsonNode seeded = JSON.readTree(sim("--duration", "20us", "--qtable-seed", "snapshot:" + learnt).out());
        assertEquals(seeded.get("latencyMeanNs"), JSON.readTree(sweep.out()).get("engines").get(0).get("points").get(0).get("latencyMeanNs"));
    }

    @Test
    void badSeedsAndSnapshotsAreRefusedBeforeTheRun() throws Exception {
        Path good = dir.resolve("good.qts");
        sim(concat(START, "--save-qtables", good.toString()));
        byte[] bytes = Files.readAllBytes(good);
        Path damaged = dir.resolve("damaged.qts");
        byte[] d = bytes.clone();
        d[bytes.length / 2] ^= 1;
        Files.write(damaged, d);
        Path truncated = dir.resolve("truncated.qts");
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
        Path other = dir.resolve("other.qts");
        Run o = run("sim", "--topology", "dragonfly:p=2,a=4,h=1", "--engine", "q-adaptive", "--vls", "5", "--duration", "1ns", "--warmup",
                "0ns", "--save-qtables", other.toString());
        assertEquals(0, o.code(), o.err());
        String seed = "Invalid value for option '--qtable-seed': ";
        assertRefused(run(concat(SIM, "--qtable-seed", "snapshot:" + other)), "emulator sim", seed + other + ": a snapshot of another "
                + "fabric: it is of a dragonfly of 5 groups of 4 routers with 2 hosts each, this fabric is 5 groups of 4 routers with 1 host each");
        assertRefused(run(concat(SIM, "--qtable-seed", "snapshot:" + damaged)), "emulator sim", seed + damaged + ": damaged: its CRC-32 is");
        assertRefused(run(concat(SIM, "--qtable-seed", "snapshot:" + truncated)), "emulator sim", seed + truncated + ": cut short: "
                + bytes.length / 2 + " bytes, the header says " + bytes.length);
        assertRefused(run(concat(SIM, "--qtable-seed", "snapshot:" + dir.resolve("none.qts"))), "emulator sim", "none.qts: no such file");
        assertRefused(run(concat(SIM, "--qtable-seed", "snapshot:")), "emulator sim", "'snapshot:' names no file");
        assertRefused(run(concat(SIM, "--qtable-seed", "random")), "emulator sim", seed + "\"random\" is no seed; give minimal");
        assertRefused(run(concat(SIM, "--qtable-seed", "zero", "--engine-param", "qtable_seed=hops")), "emulator sim",
                "--qtable-seed and --engine-param qtable_seed both");
        assertRefused(run(concat(SIM, "--save-qtables", dir.resolve("no/such/dir.qts").toString())), "emulator sim",
                "Invalid value for option '--save-qtables'", "cannot be written");
        String[] dfMin = {"sim", "--topology", TOPOLOGY, "--engine", "df-min", "--vls", "5"};
        assertRefused(run(concat(dfMin, "--qtable-seed", "zero")), "emulator sim", "--qtable-seed: df-min learns no Q-tables");
        assertRefused(run(concat(dfMin, "--save-qtables", dir.resolve("x.qts").toString())), "emulator sim",
                "--save-qtables: df-min learns no Q-tables");
        assertRefused(run("sweep", "--topology", "dragonfly:p=2,a=4,h=1", "--engines", "q-adaptive", "--vls", "5", "--loads", "0.3",
                "--qtable-seed", "snapshot:" + good), "emulator sweep", seed + good + ": a snapshot of another fabric");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "df-min,minhop", "--loads", "0.3", "--qtable-seed", "zero"),
                "emulator sweep", "--qtable-seed: df-min,minhop learns no Q-tables");
        assertEquals(List.of("damaged.qts", "good.qts", "other.qts", "truncated.qts"), files(), "nothing written by a refused run");
    }

    private List<String> files() throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
