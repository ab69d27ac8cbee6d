package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data archive the build writes beside the runnable jar (fabricctl/pom.xml) is one the
 * JVM maps ({@code -Xshare:on} makes an unusable archive an error) and holds what a daemon verb
 * loads, picocli's old class files included: the start-up docs/benchmarks.md measures. An
 * integration test because it needs the packaged jar; no timer.
 */
class ClassDataArchiveIT {
    /** Classes a daemon verb may load from the jar rather than the archive (the answer's path, which the training run does not reach). */
    static final int MOST_OUTSIDE = 150;

    @Test
    void theBuildsArchiveHoldsADaemonVerbsClasses(@TempDir Path dir) throws Exception {
        Path jar;
        try (Stream<Path> files = Files.list(Paths.get("target").toAbsolutePath())) {
            jar = files.filter(f -> f.getFileName().toString().matches("fabricctl-.*-all\\.jar")).findFirst().orElseThrow();
        }
        Path archive = jar.resolveSibling(jar.getFileName().toString().replaceFirst("\\.jar$", ".jsa"));
        assertTrue(Files.isRegularFile(archive), "the build writes " + archive);
        assertFalse(Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(archive)) > 0, "the archive is not older than the jar");

        Path log = dir.resolve("classes.log");
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:on",
                "-XX:SharedArchiveFile=" + archive, "-Xlog:class+load=info:file=" + log, "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(), "status", "--server", "127.0.0.1:1", "--timeout", "5s")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "fabricctl status did not end");
        String printed = Files.readString(out);
        assertEquals(3, p.exitValue(), "nothing listens on port 1: exit 3, having run with the archive mapped\n" + printed);

        List<String> lines = Files.readAllLines(log).stream().filter(l -> l.contains(" source: ")).toList();
        List<String> outside = lines.stream().filter(l -> !l.contains("source: shared objects file")).toList();
        for (String c : List.of("picocli.CommandLine ", "org.fabriclab.ctl.wire.UnaryExchange ", "org.fabriclab.proto.v1.AdminGrpc ")) {
            assertTrue(lines.stream().anyMatch(l -> l.contains("] " + c) && l.contains("shared objects file")), c + "from the archive");
        }
        assertTrue(outside.size() <= MOST_OUTSIDE, outside.size() + " of " + lines.size() + " classes from outside the archive:\n"
                + String.join("\n", outside.subList(0, Math.min(40, outside.size()))));
    }
}
