package org.fabriclab.routing.torus;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.routing.format.FormatException;

/**
 * A coordinates file: one switch per line, its name then its torus coordinates, separated by
 * blanks ({@code sw-r1-17 0 2 1}); {@code #} starts a comment. For a torus given as a net file whose
 * switch names do not carry their coordinates.
 */
public final class CoordinatesFile {
    private CoordinatesFile() {
    }

    /** @throws FormatException naming the file, line and problem */
    public static Map<String, int[]> read(Reader in, String source) throws IOException {
        Map<String, int[]> out = new LinkedHashMap<>();
        BufferedReader r = new BufferedReader(in);
        String line;
        int number = 0;
        int dims = -1;
        while ((line = r.readLine()) != null) {
            number++;
            int hash = line.indexOf('#');
            String text = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (text.isEmpty()) {
                continue;
            }
            String[] f = text.split("\\s+");
            if (f.length < 2 || f.length > 1 + Torus.MAX_DIMENSIONS) {
                throw new FormatException(source, number, "expected a switch name and 1 to " + Torus.MAX_DIMENSIONS + " coordinates, found '" + text + "'");
            }
            int[] c = new int[f.length - 1];
            for (int k = 0; k < c.length; k++) {
                try {
                    c[k] = Integer.parseInt(f[k + 1]);
                } catch (NumberFormatException e) {
                    throw new FormatException(source, number, "coordinate '" + f[k + 1] + "' of " + f[0] + " is not a number");
                }
                if (c[k] < 0) {
                    throw new FormatException(source, number, "coordinate " + c[k] + " of " + f[0] + " is negative");
                }
            }
            if (dims >= 0 && c.length != dims) {
                throw new FormatException(source, number, f[0] + " has " + c.length + " coordinates, the lines before " + dims);
            }
            dims = c.length;
            if (out.put(f[0], c) != null) {
                throw new FormatException(source, number, "switch " + f[0] + " appears twice");
            }
        }
        return out;
    }
}
