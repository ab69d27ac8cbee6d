package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.fabriclab.testkit.ProcessOutput;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * {@code emulator up --processes} leaves no switch process behind, however it is stopped: SIGTERM
 * and SIGINT (its shutdown hook closes the fabric, which stops and waits for the switches) and
 * SIGKILL (no hook runs: each switch sees its standard input, a pipe only the emulator held, end).
 * The emulator runs as a real process of its own; its children are read from the process table
 * before the signal, and every one of them must be gone after.
 */
class ProcessCleanupTest {
    @Test
    void sigtermLeavesNoSwitchProcess() throws Exception {
        stopAndCheck("TERM");
    }

    @Test
    void sigintLeavesNoSwitchProcess() throws Exception {
        // a process started in the background by a shell without job control ignores SIGINT, its
        // children inherit that, and the JVM leaves an ignored SIGINT ignored (no shutdown hook runs):
        // the emulator is right to stay up then, as any program under nohup or '&' would
        assumeFalse(ignoresSigint(), "SIGINT is ignored in this test run (started in the background without job control), "
                + "so the emulator ignores it too");
        stopAndCheck("INT");
    }

    /** Whether this process ignores SIGINT (bit 1 of SigIgn in /proc/self/status); false where that cannot be read. */
    private static boolean ignoresSigint() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("SigIgn:")) {
                    return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << 1)) != 0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: assume the usual
        }
        return false;
    }

    @Test
    void sigkillLeavesNoSwitchProcess() throws Exception {
        stopAndCheck("KILL");
    }

    private static void stopAndCheck(String signal) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process emulator = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "org.fabriclab.emulator.EmulatorMain", "up", "--topology", "rlft:leaves=2,spines=0,hosts=1", "--processes",
                "--management-port", "0").redirectErrorStream(true).start();
        List<String> output = ProcessOutput.follow(emulator, "emulator-output");
        List<ProcessHandle> children = List.of();
        try {
            Waits.until("the emulator is up (or has ended)", () -> !emulator.isAlive() || output.stream().anyMatch(l -> l.startsWith("fabric up:")));
            assertTrue(emulator.isAlive(), "the emulator ended: " + output);
            children = emulator.toHandle().descendants().toList();
            long switches = children.stream().filter(p -> commandLine(p).contains("org.fabriclab.agent.SwitchAgentMain")).count();
            assertEquals(2, switches, "one switch-agent per switch: " + children.stream().map(p -> p.info().toString()).toList());

            if (signal.equals("KILL")) {
                emulator.destroyForcibly();
            } else if (signal.equals("TERM")) {
                emulator.destroy();
            } else {
                assertEquals(0, new ProcessBuilder("kill", "-" + signal, Long.toString(emulator.pid())).inheritIO().start().waitFor());
            }
            List<ProcessHandle> started = children;
            Waits.until("the emulator and every process it started have ended after SIG" + signal,
                    () -> !emulator.isAlive() && started.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            emulator.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * A process's whole command line: /proc/PID/cmdline where there is one, since the JDK reads only
     * its first page and cuts a test JVM's long class path (and what follows it) short; else the
     * JDK's.
     */
    static String commandLine(ProcessHandle p) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")), StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return p.info().commandLine().orElse("");
        }
    }
}
