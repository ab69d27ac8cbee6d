package org.fabriclab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code --version} says the command's name and the POM's version, filtered in at build time. */
class VersionProviderTest {
    @Command(name = "toy", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class)
    static final class Toy implements Runnable {
        @Override
        public void run() {
        }
    }

    @Test
    void versionIsTheCommandsNameAndThePomsVersion() {
        String version = VersionProvider.version();
        assertTrue(version.matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?"), "a version from the POM, not the placeholder: " + version);
        StringWriter out = new StringWriter();
        int exit = new CommandLine(new Toy()).setOut(new PrintWriter(out)).execute("--version");
        assertEquals(0, exit);
        assertEquals("toy " + version, out.toString().strip());
    }
}
