package org.fabriclab.manager.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Prometheus tools ({@code apt-get install prometheus}: the server and {@code promtool}),
 * which {@code .ci/run} installs. A test that needs them is skipped where they are missing, unless
 * {@code FABRICLAB_REQUIRE_PROMTOOL} is set (CI), where it fails instead.
 */
public final class Promtool {
    static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");

    private Promtool() {
    }

    /** Skips the calling test without {@code tool}, unless CI requires it (then running it fails). */
    static void assumeInstalled(Path tool) {
        if (System.getenv("FABRICLAB_REQUIRE_PROMTOOL") == null) {
            Assumptions.assumeTrue(Files.isExecutable(tool), tool + " not installed (Debian package prometheus); .ci/run installs it");
        }
    }

    /**
     * Runs {@code promtool ARGS} in {@code dir} (reading {@code stdin} if not null) and returns what
     * it printed; fails with that output if it exits other than 0.
     */
    public static String run(Path dir, Path stdin, String... args) throws Exception {
        assumeInstalled(PROMTOOL);
        List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        }
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool " + String.join(" ", args) + " did not finish");
        assertEquals(0, p.exitValue(), "promtool " + String.join(" ", args) + " in " + dir + " refused:\n" + out);
        return out;
    }
}
