package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.assertSameSimulation;
import static org.fabriclab.emulator.SimCommandTest.concat;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.emulator.SimCommandTest.Run;
import org.junit.jupiter.api.Test;

/**
 * {@code emulator sim --scheduler} (experimental): global is the default and reports as before;
 * windowed runs, says what its windows held on stderr, and reports within the noise of global;
 * an unknown name, and windowed with flows, are refused before anything runs.
 */
class SchedulerOptionTest {
    private static final String[] COMMON = {"sim", "--topology", "fat-tree:k=4,levels=3", "--load", "0.4", "--duration", "30us", "--json"};

    @Test
    void globalIsTheDefaultAndWindowedRunsWithinTheNoise() {
        Run byDefault = run(COMMON);
        Run global = run(concat(COMMON, "--scheduler", "global"));
        assertEquals(0, global.code(), global.err());
        assertSameSimulation(byDefault.json(), global.json(), "global is the default");
        assertEquals("", global.err());
        Run windowed = run(concat(COMMON, "--scheduler", "windowed"));
        assertEquals(0, windowed.code(), windowed.err());
        assertTrue(windowed.err().startsWith("windowed scheduler: 48 logical processes, lookahead 100 ns; "), windowed.err());
        double g = global.json().path("throughput").asDouble();
        assertEquals(g, windowed.json().path("throughput").asDouble(), 0.02 * g, windowed.out());
    }

    @Test
    void anUnknownSchedulerAndWindowedFlowsAreRefused() {
        assertRefused(run(concat(COMMON, "--scheduler", "parallel")), "emulator sim", "--scheduler", "'parallel' is not a scheduler",
                "global, windowed");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=3", "--many-to-one", "3", "--duration", "30us", "--scheduler",
                "windowed"), "emulator sim", "--scheduler windowed", "--pattern traffic only", "--scheduler global");
    }
}
