package org.fabriclab.routing.torus;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.FormatException;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** A coordinates file is read against its fabric: every refusal names the file, the line and the problem. */
class CoordinatesFileTest {
    private static final Fabric TORUS = Topologies.generate("torus:3x3");

    private static Map<String, int[]> read(String text) throws IOException {
        return CoordinatesFile.read(new StringReader(text), "c.txt", TORUS);
    }

    private static String refused(String text) {
        return assertThrows(FormatException.class, () -> read(text)).getMessage();
    }

    @Test
    void linesNameSwitchesAndTheirPlaces() throws IOException {
        Map<String, int[]> c = read("# a comment\nT0_1 0 1   # trailing comment\n\nT2_2\t2 2\n");
        assertEquals(2, c.size());
        assertArrayEquals(new int[] {0, 1}, c.get("T0_1"));
        assertArrayEquals(new int[] {2, 2}, c.get("T2_2"));
    }

    @Test
    void aNameTheFabricDoesNotHaveIsRefusedWithItsLine() {
        assertEquals("c.txt:2: the fabric has no node named NOPE: a coordinates file names the fabric's switches as its net file does",
                refused("T0_0 0 0\nNOPE 0 1\n"));
        int h = 0;
        while (TORUS.isSwitch(h)) {
            h++;
        }
        String host = TORUS.name(h);
        assertTrue(refused(host + " 1 1\n").startsWith("c.txt:1: " + host + " is a host, not a switch"), refused(host + " 1 1\n"));
    }

    @Test
    void malformedLinesAreRefusedWithTheirLine() {
        assertEquals("c.txt:2: T0_1 has 1 coordinates, the lines before 2", refused("T0_0 0 0\nT0_1 0\n"));
        assertEquals("c.txt:2: switch T0_0 appears twice", refused("T0_0 0 0\nT0_0 0 1\n"));
        assertEquals("c.txt:1: coordinate 'x' of T0_0 is not a number", refused("T0_0 0 x\n"));
        assertEquals("c.txt:1: coordinate -1 of T0_0 is negative", refused("T0_0 0 -1\n"));
        assertTrue(refused("T0_0 0 0 0 0 0\n").startsWith("c.txt:1: expected a switch name and 1 to 4 coordinates"));
    }

    @Test
    void aHugeLineIsRepeatedInPartAndBadBytesAreNamedOnTheirLine() {
        String huge = refused("T0_0 " + "1 ".repeat(50_000) + "\n");
        assertTrue(huge.length() < 500 && huge.contains("characters)"), huge);
        byte[] bytes = "T0_0 0 0\nT0_\u00ff 0 1\n".getBytes(StandardCharsets.ISO_8859_1);
        FormatException e = assertThrows(FormatException.class,
                () -> CoordinatesFile.read(TextLines.utf8(new ByteArrayInputStream(bytes)), "bin.txt", TORUS));
        assertEquals("bin.txt:2: column 4: bytes that are not UTF-8 text (a binary or wrongly encoded file?)", e.getMessage());
    }
}
