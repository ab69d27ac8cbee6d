package org.fabriclab.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.fabriclab.emulator.EmulatorMain;
import org.junit.jupiter.api.Test;

/**
 * {@code emulator up --processes} starts one JVM per switch: more than the machine's memory
 * holds, even idle, is refused before the first one starts, with the counts and what to do.
 */
class UpProcessesTest {
    @Test
    void moreSwitchProcessesThanTheMemoryHoldsAreRefusedWithTheCounts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> UpCommand.checkProcessesFit(768, 24L << 30));
        assertEquals("--processes starts a JVM for each of the 768 switches, about 77.3 GB idle (96 MB each), more than this machine's "
                + "25.8 GB of memory; run the switches in this JVM (without --processes) or give a smaller topology", e.getMessage());
        UpCommand.checkProcessesFit(8, 24L << 30); // the README's fat-tree:k=4,levels=2: 0.8 GB
        UpCommand.checkProcessesFit(768, 0); // a JVM that cannot tell the memory: not refused on a guess
    }

    /** Through the command: 50,000 switch processes fit no machine; refused in one line before any starts. */
    @Test
    void theCommandRefusesBeforeStartingAny() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = EmulatorMain.run(new String[] {"up", "--topology", "torus:250x200", "--processes", "--management-port", "0"},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertEquals(2, code, err.toString());
        assertTrue(err.toString().startsWith("emulator up: --processes starts a JVM for each of the 50,000 switches"), err.toString());
        assertEquals(1, err.toString().strip().lines().count(), err.toString());
        assertEquals("", out.toString());
    }
}
