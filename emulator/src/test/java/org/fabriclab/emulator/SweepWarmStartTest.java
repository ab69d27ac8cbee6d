package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.assertSameSimulation;
import static org.fabriclab.emulator.SimCommandTest.concat;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.fabriclab.emulator.SimCommandTest.Run;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code emulator sweep --warm-start} and {@code --engine-steady-window}: a Q-adaptive point starts
 * from exactly the Q-tables the point at the next lower load ended with (what {@code emulator sim
 * --save-qtables} would write and {@code --qtable-seed snapshot:} install), the engines that learn
 * nothing are run as without the option, the results do not depend on the threads, and the option
 * is refused where it cannot save anything.
 */
class SweepWarmStartTest {
    private static final String TOPOLOGY = "dragonfly:p=1,a=4,h=1";
    /** What the sweep and the sims below share: Q-adaptive's lanes, ADV+1, a short run whose warm-up ends when steady. */
    private static final String[] COMMON = {"--topology", TOPOLOGY, "--vls", "5", "--pattern", "adv+1", "--duration", "20us",
        "--warmup", "10us", "--until-steady"};

    @TempDir
    Path dir;

    private static String[] sweep(String... more) {
        return concat(concat(new String[] {"sweep", "--engines", "q-adaptive,df-min"}, COMMON), more);
    }

    private static JsonNode ok(Run r) {
        assertEquals(0, r.code(), r.err());
        return r.json();
    }

    /** Point {@code j} of engine {@code e} without the sweep's own fields: what {@code emulator sim} reports for it. */
    private static ObjectNode asSim(JsonNode sweep, int e, int j) {
        ObjectNode p = sweep.path("engines").get(e).path("points").get(j).deepCopy();
        p.remove(List.of("load", "saturated", "warmStartFrom"));
        return p;
    }

    @Test
    void eachQAdaptivePointStartsFromTheTablesThePointBelowEndedWith() {
        // the loads out of order: the chain is the loads', rising, not the list's
        JsonNode warm = ok(run(sweep("--loads", "0.4,0.2", "--warm-start", "--threads", "1", "--json")));
        Path below = dir.resolve("below.qts");
        Run first = run(concat(concat(new String[] {"sim", "--engine", "q-adaptive", "--load", "0.2", "--json"}, COMMON),
                "--save-qtables", below.toString()));
        Run second = run(concat(concat(new String[] {"sim", "--engine", "q-adaptive", "--load", "0.4", "--json"}, COMMON),
                "--qtable-seed", "snapshot:" + below));
        assertSameSimulation(ok(first), asSim(warm, 0, 1), "the lowest load starts from the engine's seed");
        assertSameSimulation(ok(second), asSim(warm, 0, 0), "0.4 starts from the tables 0.2 ended with");
        JsonNode q = warm.path("engines").get(0);
        assertTrue(q.path("warmStart").asBoolean(), q.toString());
        assertEquals(0.2, q.path("points").get(0).path("warmStartFrom").asDouble(), "0.4's point says where it started");
        assertTrue(q.path("points").get(1).path("warmStartFrom").isMissingNode(), "0.2's started from the seed");
        assertTrue(warm.path("options").path("warmStart").asBoolean());

        // df-min learns nothing: its points are the sweep's without the option
        JsonNode cold = ok(run(sweep("--loads", "0.4,0.2", "--threads", "1", "--json")));
        JsonNode min = warm.path("engines").get(1);
        assertFalse(min.path("warmStart").asBoolean(), min.toString());
        for (int j = 0; j < 2; j++) {
            assertTrue(min.path("points").get(j).path("warmStartFrom").isMissingNode());
            assertSameSimulation(asSim(cold, 1, j), asSim(warm, 1, j), "df-min at " + j);
        }
        // and the option changed Q-adaptive's point above the lowest, not the lowest
        assertNotEquals(asSim(cold, 0, 0).path("latencyMeanNs"), asSim(warm, 0, 0).path("latencyMeanNs"));
        assertSameSimulation(asSim(cold, 0, 1), asSim(warm, 0, 1), "the lowest load as without the option");
        assertTrue(cold.path("options").path("warmStart").isMissingNode() && cold.path("engines").get(0).path("warmStart").isMissingNode(),
                "without the option the report is as it was");
    }

    /** A chain runs on one thread whatever the pool, the other points beside it: the same report on one thread as on three. */
    @Test
    void theResultsAreTheSameOnAnyNumberOfThreads() {
        ObjectNode one = ok(run(sweep("--loads", "0.1:0.3:0.1", "--warm-start", "--threads", "1", "--json"))).deepCopy();
        Run r = run(sweep("--loads", "0.1:0.3:0.1", "--warm-start", "--threads", "3"));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("from load 0.1's tables") && r.err().contains("from load 0.2's tables"), r.err());
        ObjectNode three = ok(run(sweep("--loads", "0.1:0.3:0.1", "--warm-start", "--threads", "3", "--json"))).deepCopy();
        one.remove("threads");
        three.remove("threads");
        assertSameSimulation(one, three, "one thread against three");
    }

    @Test
    void anEngineCanHaveSteadyWindowsOfItsOwn() {
        JsonNode j = ok(run(sweep("--loads", "0.2", "--steady-window", "250ns", "--engine-steady-window", "q-adaptive=500ns", "--json")));
        assertEquals(500, j.path("engines").get(0).path("steadyWindowNs").asLong(), "q-adaptive's own");
        assertEquals(250, j.path("engines").get(1).path("steadyWindowNs").asLong(), "df-min's: --steady-window");
        Run sim = run(concat(concat(new String[] {"sim", "--engine", "q-adaptive", "--load", "0.2", "--json"}, COMMON),
                "--steady-window", "500ns"));
        assertSameSimulation(ok(sim), asSim(j, 0, 0), "q-adaptive's point is sim's with its window");
    }

    @Test
    void whatCannotBeWarmStartedOrWindowedIsRefusedBeforeAnythingRuns() {
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "df-min,df-valn", "--vls", "5", "--loads", "0.2,0.4",
                "--until-steady", "--warm-start"), "emulator sweep", "--warm-start", "df-min,df-valn learns no Q-tables");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "q-adaptive", "--vls", "5", "--loads", "0.2,0.4",
                "--warm-start"), "emulator sweep", "--warm-start", "give --until-steady too");
        assertRefused(run("sweep", "--topology", TOPOLOGY, "--engines", "q-adaptive", "--vls", "5", "--loads", "0.2",
                "--engine-steady-window", "q-adaptive=1us"), "emulator sweep", "--engine-steady-window", "give --until-steady too");
        assertRefused(run(sweep("--loads", "0.2", "--engine-steady-window", "df-valn=1us")), "emulator sweep",
                "'--engine-steady-window'", "df-valn is not one of the engines swept");
        assertRefused(run(sweep("--loads", "0.2", "--engine-steady-window", "q-adaptive=0us")), "emulator sweep",
                "'--engine-steady-window'", "q-adaptive=0us is not a width above 0");
        assertRefused(run(sweep("--loads", "0.2", "--engine-steady-window", "q-adaptive=2us")), "emulator sweep",
                "'--engine-steady-window'", "q-adaptive's steady-state test needs 20 windows of 2000 ns within its warm-up's cap (10000 ns)");
        assertRefused(run(sweep("--loads", "0.2", "--steady-window", "1us", "--engine-steady-window", "q-adaptive=500ns")), "emulator sweep",
                "'--steady-window'", "df-min's steady-state test needs 20 windows of 1000 ns");
    }
}
