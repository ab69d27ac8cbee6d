package org.fabriclab.manager.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's {@code chromium}, headless, for the fabric view's tests: loads a page, lets its scripts
 * run for a budget of virtual time (which stands still while a fetch is under way, so a slow
 * machine waits rather than fails) and returns the DOM as it then is. Each run has its own profile
 * and home in a temporary directory (so its crash handler's files, and its command lines, name that
 * directory), and every process whose command line names it is killed when the run ends, ended or
 * not. Skipped where chromium is not installed, unless FABRICLAB_REQUIRE_CHROMIUM is set (as
 * {@code .ci/run} sets it, after installing chromium).
 */
final class HeadlessChromium {
    static final Path BINARY = Path.of("/usr/bin/chromium");
    /** Virtual time the page's scripts get: its first load and a few polls of the view. */
    static final int VIRTUAL_MS = 4000;
    /** A bound on one run of the browser in wall time: generous, a busy machine must not fail it. */
    static final long LIMIT_SECONDS = 120;

    private HeadlessChromium() {
    }

    /** Skips the test without chromium, unless FABRICLAB_REQUIRE_CHROMIUM is set (then it fails later, naming the binary). */
    static void assumeInstalled() {
        if (System.getenv("FABRICLAB_REQUIRE_CHROMIUM") == null) {
            Assumptions.assumeTrue(Files.isExecutable(BINARY), BINARY + " not installed (Debian package chromium); .ci/run installs it");
        }
    }

    /** The DOM of {@code url} after {@link #VIRTUAL_MS} of virtual time, with a profile under {@code dir}. */
    static String dumpDom(String url, Path dir) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(BINARY), BINARY + " is needed (Debian package chromium) and FABRICLAB_REQUIRE_CHROMIUM is set");
        Path run = Files.createTempDirectory(dir, "chromium-");
        Path out = run.resolve("dom.html");
        Path err = run.resolve("stderr.txt");
        Process p = start(run, List.of("--virtual-time-budget=" + VIRTUAL_MS, "--dump-dom", url), out, err);
        try {
            assertTrue(p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS), "chromium did not finish loading " + url + " in " + LIMIT_SECONDS + " s");
            assertEquals(0, p.exitValue(), "chromium failed on " + url + ":\n" + Files.readString(err));
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            kill(p, run);
        }
    }

    /** A chromium for run directory {@code run} (its profile, home and config there), with {@code arguments}, started. */
    static Process start(Path run, List<String> arguments, Path out, Path err) throws IOException {
        List<String> command = new ArrayList<>(List.of(BINARY.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + run.resolve("profile")));
        command.addAll(arguments);
        ProcessBuilder b = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        b.environment().put("HOME", run.toString());
        b.environment().put("XDG_CONFIG_HOME", run.resolve("config").toString());
        b.environment().put("XDG_CACHE_HOME", run.resolve("cache").toString());
        return b.start();
    }

    /**
     * Ends {@code p} (asked first: chromium then ends and reaps its own processes), then kills what
     * is left of it, its descendants and every process whose command line names {@code run}, and
     * waits until none is left.
     */
    static void kill(Process p, Path run) {
        p.destroy();
        try {
            p.waitFor(10, TimeUnit.SECONDS); // a bound, not a wait for anything: what is left is killed below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        String mark = run.toString();
        ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains(mark)).forEach(ProcessHandle::destroyForcibly);
        Waits.until("no chromium process of this run left", () -> !p.isAlive()
                && ProcessHandle.allProcesses().noneMatch(h -> h.isAlive() && h.info().commandLine().orElse("").contains(mark)));
    }
}
