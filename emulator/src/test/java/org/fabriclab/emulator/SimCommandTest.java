package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code emulator sim} as a user runs it: the report's contract fields, and what it says when it measured nothing. */
class SimCommandTest {
    /** Runs the command; returns exit code, stdout and stderr. */
    private static String[] run(String... args) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            code = new CommandLine(new EmulatorMain()).execute(args);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
        return new String[] {Integer.toString(code), o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void theReportCarriesTheContractFields() {
        String[] r = run("sim", "--topology", "fat-tree:k=4,levels=3", "--load", "0.3", "--duration", "20us", "--json");
        assertEquals("0", r[0], r[2]);
        for (String field : new String[] {"offeredLoad", "throughput", "latencyMeanNs", "latencyP95Ns", "latencyP99Ns", "meanHops",
                "packetsDelivered", "packetsDropped", "wallMillis", "eventsPerSecond"}) {
            assertTrue(r[1].matches("(?s).*\"" + field + "\":[0-9].*"), field + " is a number in " + r[1]);
        }
        assertEquals("", r[2].strip(), "nothing to warn about");
    }

    /** A deadlocked fabric (minhop's credit loops on a one-lane torus) delivers nothing measured: no latency of 0, but null and the reason. */
    @Test
    void aRunThatMeasuredNoPacketSaysSoInsteadOfReportingZeroLatency() {
        String[] r = run("sim", "--topology", "torus:4x4x4", "--vls", "1", "--load", "0.8", "--duration", "100us", "--json");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("\"packetsDelivered\":0"), r[1]);
        assertTrue(r[1].contains("\"latencyMeanNs\":null") && r[1].contains("\"latencyP99Ns\":null") && r[1].contains("\"meanHops\":null"),
                r[1]);
        assertTrue(r[2].contains("no packet created after the warm-up") && r[2].contains("saturated or deadlocked"), r[2]);
    }
}
