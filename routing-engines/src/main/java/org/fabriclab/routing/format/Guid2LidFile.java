package org.fabriclab.routing.format;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * OpenSM's {@code guid2lid} file: one line per port, {@code 0x<port guid> 0x<base lid> 0x<max lid>}.
 * With LMC 0 both LIDs are equal. Blank lines and {@code #} comments are skipped.
 */
public final class Guid2LidFile {
    private Guid2LidFile() {
    }

    /** Reads a guid2lid file; {@code source} names it in error messages. */
    public static Map<Long, Integer> read(Reader in, String source) throws IOException {
        Map<Long, Integer> m = new LinkedHashMap<>();
        BufferedReader r = new BufferedReader(in);
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            String t = line.trim();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String[] f = t.split("\\s+");
            if (f.length < 2) {
                throw new FormatException(source, lineNo, "expected '0x<port guid> <lid> [<max lid>]', got '" + t + "'");
            }
            try {
                long guid = Guids.parse(f[0]);
                int lid = Integer.decode(f[1]);
                if (lid < 1 || lid > LidAssignment.MAX_UNICAST_LID) {
                    throw new FormatException(source, lineNo, "LID " + f[1] + " is not a unicast LID (1..0xbfff)");
                }
                m.put(guid, lid);
            } catch (NumberFormatException e) {
                throw new FormatException(source, lineNo, "bad number in '" + t + "': " + e.getMessage());
            }
        }
        return m;
    }

    /** Writes the assignment in OpenSM's format. */
    public static void write(Map<Long, Integer> lids, Writer out) throws IOException {
        for (Map.Entry<Long, Integer> e : lids.entrySet()) {
            out.write(String.format("0x%016x 0x%04x 0x%04x%n", e.getKey(), e.getValue(), e.getValue()));
        }
        out.flush();
    }
}
