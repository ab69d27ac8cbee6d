package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabriclab.emulator.EmulatorMain;
import org.fabriclab.routing.format.QTableSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q-table snapshots between the daemon and the simulator (issue 17), both ways: a snapshot the
 * daemon saved ({@code fabricctl qtable snapshot save}) seeds {@code emulator sim --qtable-seed
 * snapshot:FILE} on the same topology spec, which starts from exactly its values; what a simulated
 * run learnt ({@code --save-qtables}), put in the daemon's {@code STATE_DIR/qtables/}, is restored
 * by {@code fabricctl qtable snapshot restore} and every switch then holds its values.
 */
class QTableSimulatorTest {
    private static final String[] SIM = {"sim", "--topology", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--vls", "5",
        "--pattern", "adv+1", "--load", "0.4"};

    private static void sim(String... more) {
        List<String> args = new ArrayList<>(List.of(SIM));
        args.addAll(List.of(more));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = EmulatorMain.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(0, code, err.toString());
    }

    /** The snapshot's values, switch by switch, as {@link QTableVerbsTest#values} reads them from the switches. */
    private static List<List<Double>> values(QTableSnapshot s) {
        List<List<Double>> out = new ArrayList<>();
        for (int k = 0; k < s.fabric().switches(); k++) {
            List<Double> v = new ArrayList<>();
            for (float x : s.table(k).values()) {
                v.add((double) x);
            }
            out.add(v);
        }
        return out;
    }

    /** {@code v} as the switches hold it, in single precision ({@code fabricctl --json} prints each float's shortest form). */
    private static List<List<Double>> asFloats(List<List<Double>> v) {
        return v.stream().map(row -> row.stream().map(x -> (double) x.floatValue()).toList()).toList();
    }

    @Test
    void theDaemonsSnapshotSeedsASimulationAndASimulatedOneRestoresOnTheDaemon(@TempDir Path dir) throws Exception {
        try (EmulatedDaemon d = QTableVerbsTest.daemon(dir, "--traffic", "none")) {
            FabricCtlTest.Run save = FabricCtlTest.run("qtable", "snapshot", "save", "live", "--server", d.server());
            assertEquals(0, save.code(), save.err());
            Path live = dir.resolve("qtables/live.qts");
            QTableSnapshot daemons = QTableSnapshot.read(live, live.toString());

            // daemon to simulator: a run of 1 ns learns nothing, so it saves what it started from
            Path started = dir.resolve("started.qts");
            sim("--duration", "1ns", "--warmup", "0ns", "--qtable-seed", "snapshot:" + live, "--save-qtables", started.toString());
            QTableSnapshot s = QTableSnapshot.read(started, started.toString());
            assertEquals(daemons.fabric(), s.fabric(), "the same topology spec, the same fingerprint");
            assertEquals(values(daemons), values(s));

            // simulator to daemon: what 20 us of ADV+1 taught the simulated routers, restored on the live ones
            Path learnt = dir.resolve("qtables/simulated.qts");
            sim("--duration", "20us", "--save-qtables", learnt.toString());
            List<List<Double>> simulated = values(QTableSnapshot.read(learnt, learnt.toString()));
            assertNotEquals(values(daemons), simulated, "the simulated run learnt");
            FabricCtlTest.Run restore = FabricCtlTest.run("qtable", "snapshot", "restore", "simulated", "--server", d.server());
            assertEquals(0, restore.code(), restore.err());
            assertEquals(simulated, asFloats(QTableVerbsTest.values(d, "values")));
        }
    }
}
