package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code emulator sim} as a user runs it: the report's contract fields, and what it says when it measured nothing. */
class SimCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Exit code, standard output and standard error of one command line. */
    record Run(int code, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not one JSON object: " + out, e);
            }
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = EmulatorMain.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void theReportCarriesTheContractFields() {
        Run r = run("sim", "--topology", "fat-tree:k=4,levels=3", "--load", "0.3", "--duration", "20us", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        for (String field : new String[] {"offeredLoad", "throughput", "latencyMeanNs", "latencyP95Ns", "latencyP99Ns", "meanHops",
                "packetsDelivered", "packetsDropped", "wallMillis", "eventsPerSecond", "packetHopsPerSecond"}) {
            assertTrue(j.path(field).isNumber(), field + " is a number in " + r.out());
        }
        assertEquals("minhop", j.path("routing").asText());
        assertEquals("uniform", j.path("pattern").asText());
        assertEquals("fat-tree:k=4,levels=3", j.path("topology").asText());
        assertEquals(1, j.path("seed").asLong());
        assertTrue(j.path("packetsDelivered").asLong() > 0, r.out());
        assertEquals("", r.err().strip(), "nothing to warn about");
    }

    /** A deadlocked fabric (minhop's credit loops on a one-lane torus) delivers nothing measured: no latency of 0, but null and the reason. */
    @Test
    void aRunThatMeasuredNoPacketSaysSoInsteadOfReportingZeroLatency() {
        Run r = run("sim", "--topology", "torus:4x4x4", "--vls", "1", "--load", "0.8", "--duration", "100us", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(0, j.path("packetsDelivered").asLong(), r.out());
        for (String field : new String[] {"latencyMeanNs", "latencyP95Ns", "latencyP99Ns", "meanHops"}) {
            assertTrue(j.has(field) && j.get(field).isNull(), field + " is null in " + r.out());
        }
        assertTrue(r.err().contains("no packet created after the warm-up") && r.err().contains("saturated or deadlocked"), r.err());
    }

    /** The old spellings give the same report as the new ones, with one warning line each naming the new spelling. */
    @Test
    void oldSpellingsStillWorkWithAWarning() {
        Run now = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "updn", "--pattern", "group-shift", "--load", "0.4",
                "--duration", "20us", "--link-latency", "300ns", "--adaptive", "off", "--json");
        Run old = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--routing", "updn", "--pattern", "group-shift", "--load", "0.4",
                "--duration", "20000", "--latency-ns", "300", "--adaptive", "off", "--json");
        assertEquals(0, now.code(), now.err());
        assertEquals(0, old.code(), old.err());
        assertEquals("", now.err());
        for (String field : new String[] {"routing", "pattern", "throughput", "latencyMeanNs", "packetsDelivered", "events", "simulatedNs"}) {
            assertEquals(now.json().get(field), old.json().get(field), field);
        }
        assertEquals("updn", old.json().path("routing").asText());
        assertEquals(3, old.err().strip().lines().count(), old.err());
        assertTrue(old.err().contains("--routing is deprecated") && old.err().contains("use --engine"), old.err());
        assertTrue(old.err().contains("--latency-ns is deprecated") && old.err().contains("use --link-latency"), old.err());
        assertTrue(old.err().contains("--duration 20000 without a unit is deprecated; write 20000ns"), old.err());
    }

    /** A bad value is refused while parsing: one line naming the option and the value, exit code 2, no stack trace, no simulation. */
    @Test
    void badValuesAreRefusedBeforeAnythingStarts() {
        String[][] bad = {
            {"--pattern", "tornado", "'tornado' is not a traffic pattern; use uniform, permutation, all-to-all, group-shift"},
            {"--duration", "soon", "'soon' is not a duration"},
            {"--warmup", "1x", "'1x' is not a duration"},
            {"--engine", "nosuch", "nosuch"},
            {"--adaptive", "maybe", "'maybe' is not a setting; use on, off"},
            {"--topology", "fat-tree:k=4,levels=x", "--topology"},
        };
        for (String[] b : bad) {
            String[] args = b[0].equals("--topology") ? new String[] {"sim", b[0], b[1]}
                    : new String[] {"sim", "--topology", "fat-tree:k=4,levels=3", b[0], b[1]};
            Run r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
            assertTrue(r.err().startsWith("emulator sim: ") && r.err().contains(b[0]) && r.err().contains(b[2]), r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());
            assertEquals("", r.out());
        }
    }
}
