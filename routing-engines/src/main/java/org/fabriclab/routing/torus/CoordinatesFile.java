package org.fabriclab.routing.torus;

import java.io.IOException;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.FormatException;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.text.Excerpt;

/**
 * A coordinates file: one switch per line, its name then its torus coordinates, separated by
 * blanks ({@code sw-r1-17 0 2 1}); {@code #} starts a comment. For a torus given as a net file whose
 * switch names do not carry their coordinates.
 */
public final class CoordinatesFile {
    private CoordinatesFile() {
    }

    /**
     * Reads the coordinates of {@code fabric}'s switches. A line that does not parse, a switch named
     * twice and a name that is no switch of the fabric (a typo, a host, a file for another fabric)
     * are refused with the line; so are bytes that are not UTF-8, when {@code in} comes from
     * {@link TextLines#utf8}. Switches the file leaves out are the torus engine's to refuse.
     *
     * @throws FormatException naming the file, line and problem
     */
    public static Map<String, int[]> read(Reader in, String source, Fabric fabric) throws IOException {
        Map<String, int[]> out = new LinkedHashMap<>();
        TextLines lines = new TextLines(in, source);
        String line;
        int dims = -1;
        while ((line = lines.next()) != null) {
            int number = lines.lineNo();
            int bad = TextLines.badByteAt(line);
            if (bad > 0) {
                throw new FormatException(source, number, TextLines.notUtf8(bad));
            }
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (text.isEmpty()) {
                continue;
            }
            String[] f = text.split("\\s+");
            if (f.length < 2 || f.length > 1 + Torus.MAX_DIMENSIONS) {
                throw new FormatException(source, number, "expected a switch name and 1 to " + Torus.MAX_DIMENSIONS + " coordinates, found '"
                        + Excerpt.bare(text) + "'");
            }
            String name = Excerpt.bare(f[0]);
            int[] c = new int[f.length - 1];
            for (int k = 0; k < c.length; k++) {
                try {
                    c[k] = Integer.parseInt(f[k + 1]);
                } catch (NumberFormatException e) {
                    throw new FormatException(source, number, "coordinate '" + Excerpt.bare(f[k + 1]) + "' of " + name + " is not a number");
                }
                if (c[k] < 0) {
                    throw new FormatException(source, number, "coordinate " + c[k] + " of " + name + " is negative");
                }
            }
            if (dims >= 0 && c.length != dims) {
                throw new FormatException(source, number, name + " has " + c.length + " coordinates, the lines before " + dims);
            }
            dims = c.length;
            Integer node = fabric.nodeByName(f[0]).orElse(null);
            if (node == null || !fabric.isSwitch(node)) {
                throw new FormatException(source, number, (node == null ? "the fabric has no node named " + name : name + " is a host, "
                        + "not a switch") + ": a coordinates file names the fabric's switches as its net file does");
            }
            if (out.put(f[0], c) != null) {
                throw new FormatException(source, number, "switch " + name + " appears twice");
            }
        }
        return out;
    }
}
