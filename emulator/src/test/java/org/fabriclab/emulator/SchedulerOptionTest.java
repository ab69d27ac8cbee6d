package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.assertSameSimulation;
import static org.fabriclab.emulator.SimCommandTest.concat;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.fabriclab.emulator.SimCommandTest.Run;
import org.fabriclab.emulator.sim.Simulation;
import org.junit.jupiter.api.Test;

/**
 * {@code emulator sim --scheduler} and {@code emulator sweep --scheduler} (experimental): global
 * is the default and reports as before; windowed runs, says what its windows held on stderr (sim;
 * a sweep, one line a point as ever), and reports within the noise of global; every point of a
 * windowed sweep is {@code sim --scheduler windowed}'s report, and its options say so; a fabric of
 * one logical process runs by the global loop, in a line on stderr; an unknown name, and windowed
 * with flows or jobs, are refused before anything runs.
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

    /** Links without delay make the tree one logical process: the global loop runs it, one line says so, sim's and a sweep's. */
    @Test
    void aFabricOfOneProcessRunsByTheGlobalLoopAndSaysSoInOneLine() {
        String[] oneProcess = concat(COMMON, "--link-latency", "0ns");
        Run global = run(oneProcess);
        assertEquals(0, global.code(), global.err());
        Run windowed = run(concat(oneProcess, "--scheduler", "windowed"));
        assertEquals(0, windowed.code(), windowed.err());
        assertEquals(Simulation.ONE_PROCESS, windowed.err().strip(), "one line: what happened and why");
        assertSameSimulation(global.json(), windowed.json(), "the global loop's run");
        Run sweep = run("sweep", "--topology", "fat-tree:k=4,levels=3", "--link-latency", "0ns", "--engines", "minhop", "--loads", "0.2,0.4",
                "--duration", "20us", "--threads", "2", "--scheduler", "windowed", "--json");
        assertEquals(0, sweep.code(), sweep.err());
        assertEquals(1, sweep.err().lines().filter(Simulation.ONE_PROCESS::equals).count(), "once for the sweep: " + sweep.err());
        assertEquals(1 + 1 + 2 + 1, sweep.err().strip().lines().count(), "the grid, the routing, a line a point, and that: " + sweep.err());
    }

    @Test
    void anUnknownSchedulerAndWindowedFlowsAreRefused() {
        assertRefused(run(concat(COMMON, "--scheduler", "parallel")), "emulator sim", "--scheduler", "'parallel' is not a scheduler",
                "global, windowed");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=3", "--many-to-one", "3", "--duration", "30us", "--scheduler",
                "windowed"), "emulator sim", "--scheduler windowed", "--pattern traffic only", "--scheduler global");
    }

    private static final String[] SWEEP = {"sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "minhop", "--loads", "0.2,0.5",
        "--duration", "20us", "--threads", "2", "--json"};

    @Test
    void aWindowedSweepRunsEveryPointAsSimWindowedDoesAndSaysSo() {
        Run windowed = run(concat(SWEEP, "--scheduler", "windowed"));
        assertEquals(0, windowed.code(), windowed.err());
        assertEquals("windowed", windowed.json().path("options").path("scheduler").asText());
        assertFalse(windowed.err().contains("windowed scheduler:"), "a sweep says one line a point: " + windowed.err());
        assertEquals(1 + 1 + 2, windowed.err().strip().lines().count(), "the grid, the routing, a line a point: " + windowed.err());
        JsonNode points = windowed.json().path("engines").get(0).path("points");
        for (int i = 0; i < 2; i++) {
            String load = i == 0 ? "0.2" : "0.5";
            Run sim = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "minhop", "--load", load, "--duration", "20us",
                    "--scheduler", "windowed", "--json");
            assertEquals(0, sim.code(), sim.err());
            ObjectNode point = points.get(i).deepCopy();
            point.remove(List.of("load", "saturated"));
            assertSameSimulation(sim.json(), point, "load " + load + ": the point is sim --scheduler windowed's report");
        }
        Run global = run(SWEEP);
        assertEquals(0, global.code(), global.err());
        assertTrue(global.json().path("options").path("scheduler").isMissingNode(), "absent by default: the report as it was");
        JsonNode light = global.json().path("engines").get(0).path("points").get(0);
        assertFalse(light.path("saturated").asBoolean() || points.get(0).path("saturated").asBoolean(), "load 0.2 is carried");
        double g = light.path("throughput").asDouble();
        assertEquals(g, points.get(0).path("throughput").asDouble(), 0.03 * g, "within the noise of the global loop's");
    }

    @Test
    void aWindowedSweepOfJobsIsRefusedBeforeAnythingRuns() {
        assertRefused(run(concat(new String[] {"sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "minhop", "--loads", "0.2",
            "--duration", "20us", "--job", "name=a,hosts=8"}, "--scheduler", "windowed")), "emulator sweep", "--scheduler windowed",
                "--pattern traffic only", "jobs", "--scheduler global");
        assertRefused(run(concat(SWEEP, "--scheduler", "parallel")), "emulator sweep", "--scheduler", "'parallel' is not a scheduler");
    }
}
