package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

/**
 * Keeps a daemon verb's start-up honest without a timer: {@code fabricctl status}, run in a fresh
 * JVM against a real daemon, must work while loading no Netty and no logging back end, and fewer
 * classes than {@link #MOST_CLASSES}, counted from the JVM's own class-load log. Almost all of a
 * verb's wall time is loading and interpreting classes (docs/benchmarks.md), so the count is the
 * cost: about 1,700 here (about 1,000 of them the JDK's own), where grpc-netty's channel loaded
 * 4,300. The bound leaves room for the verbs to grow, not for a second transport.
 */
class StartupClassesTest {
    /** At most this many classes loaded by {@code fabricctl status}, the JDK's included. */
    static final int MOST_CLASSES = 2_300;

    @Test
    void statusLoadsNoNettyAndFewClasses(@TempDir Path dir) throws Exception {
        try (TestDaemon daemon = TestDaemon.start("paper:ib-ar-c1", "A")) {
            assertEquals("UP", daemon.manager().sweep().get(60, TimeUnit.SECONDS).state().name());
            Path log = dir.resolve("classes.log");
            Path out = dir.resolve("out.txt");
            Process p = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xlog:class+load=info:file=" + log, "-cp", System.getProperty("java.class.path"),
                    FabricCtl.class.getName(), "status", "--server", daemon.server())
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            assertTrue(p.waitFor(5, TimeUnit.MINUTES), "fabricctl status did not end");
            String printed = Files.readString(out);
            assertEquals(0, p.exitValue(), printed);
            assertTrue(printed.lines().anyMatch(l -> l.matches("state +UP")), printed);

            List<String> classes = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains(" source: ")).map(l -> l.substring(l.indexOf("] ") + 2, l.indexOf(" source: "))).toList();
            assertTrue(classes.contains(FabricCtl.class.getName()), "a class-load log: " + classes.size() + " lines");
            List<String> unwanted = classes.stream().filter(c -> c.contains(".netty.") || c.startsWith("ch.qos.logback.")).toList();
            assertEquals(List.of(), unwanted, "a daemon verb loads no Netty and no logging back end");
            assertTrue(classes.size() <= MOST_CLASSES, "fabricctl status loaded " + classes.size() + " classes, more than " + MOST_CLASSES);
        }
    }

    @Test
    void everyVerbIsRegisteredUnderItsCommandName() {
        FabricCtl.VERBS.forEach((name, verb) -> assertEquals(name, verb.get().getClass().getAnnotation(Command.class).name()));
        FabricCtlTest.Run usage = FabricCtlTest.run();
        for (String name : FabricCtl.VERBS.keySet()) {
            assertTrue(usage.out().lines().anyMatch(l -> l.startsWith("  " + name + " ")), name + " in the usage:\n" + usage.out());
        }
    }
}
