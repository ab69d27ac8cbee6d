package org.fabriclab.routing.format;

import org.fabriclab.routing.text.Excerpt;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * OpenSM's {@code guid2lid} file: one line per port, {@code 0x<port guid> 0x<base lid> 0x<max lid>}.
 * With LMC 0 both LIDs are equal. Blank lines and {@code #} comments are skipped.
 *
 * <p>A line that is not a port's LID is skipped and reported with its file and line, and every
 * other line is kept: one bad line (garbage, LID 0 or 0xc000 and above, a line cut short, bytes
 * that are not UTF-8 when read through {@link TextLines#utf8}) must not cost every port its LID,
 * which would renumber the whole fabric. So is a port listed twice (the first line wins) and a
 * LID given to two ports (the first port keeps it): the file's LIDs stay one per port.
 */
public final class Guid2LidFile {
    private Guid2LidFile() {
    }

    /**
     * What a file held.
     *
     * @param lids    port GUID to LID, in file order
     * @param skipped the lines left out, each as {@code source:line: problem}
     */
    public record Contents(Map<Long, Integer> lids, List<FormatException> skipped) {
        public Contents {
            lids = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(lids));
            skipped = List.copyOf(skipped);
        }
    }

    /** Reads a guid2lid file; {@code source} names it in what {@link Contents#skipped} reports. */
    public static Contents read(Reader in, String source) throws IOException {
        Map<Long, Integer> lids = new LinkedHashMap<>();
        Map<Long, Integer> lineOfGuid = new HashMap<>();
        Map<Integer, Integer> lineOfLid = new HashMap<>();
        List<FormatException> skipped = new ArrayList<>();
        TextLines lines = new TextLines(in, source);
        String line;
        while (true) {
            try {
                line = lines.next();
            } catch (FormatException e) { // a strict reader could not decode: what was read is kept
                skipped.add(e);
                break;
            }
            if (line == null) {
                break;
            }
            int lineNo = lines.lineNo();
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            String problem = problem(t);
            long guid = 0;
            int lid = 0;
            if (problem == null) {
                String[] f = t.split("\\s+");
                guid = Guids.parse(f[0]);
                lid = Integer.decode(f[1]);
                Integer first = lineOfGuid.get(guid);
                Integer holder = lineOfLid.get(lid);
                if (first != null) {
                    problem = "port " + Guids.format(guid) + " is listed again (line " + first + " is kept)";
                } else if (holder != null) {
                    problem = "LID " + lid + " is given again (line " + holder + " keeps it)";
                }
            }
            if (problem != null) {
                skipped.add(new FormatException(source, lineNo, problem + "; the line is skipped"));
                continue;
            }
            lids.put(guid, lid);
            lineOfGuid.put(guid, lineNo);
            lineOfLid.put(lid, lineNo);
        }
        return new Contents(lids, skipped);
    }

    /** Why {@code t} (stripped, not a comment) is not a port's LID, or null if it is. */
    private static String problem(String t) {
        int bad = TextLines.badByteAt(t);
        if (bad > 0) {
            return TextLines.notUtf8(bad);
        }
        String[] f = t.split("\\s+");
        if (f.length < 2 || f.length > 3) {
            return "expected '0x<port guid> <lid> [<max lid>]', got '" + Excerpt.bare(t) + "'";
        }
        long guid;
        try {
            guid = Guids.parse(f[0]);
        } catch (NumberFormatException e) {
            return "'" + Excerpt.bare(f[0]) + "' is not a port GUID (0x and up to 16 hex digits)";
        }
        if (guid == 0) {
            return "GUID 0 is no port's";
        }
        int[] lid = new int[f.length - 1];
        for (int i = 1; i < f.length; i++) {
            try {
                lid[i - 1] = Integer.decode(f[i]);
            } catch (NumberFormatException e) {
                return "'" + Excerpt.bare(f[i]) + "' is not a LID";
            }
            if (lid[i - 1] < 1 || lid[i - 1] > LidAssignment.MAX_UNICAST_LID) {
                return "LID " + Excerpt.bare(f[i]) + " is not a unicast LID (1..0xbfff)";
            }
        }
        if (lid.length == 2 && lid[1] < lid[0]) {
            return "max LID " + f[2] + " is below base LID " + f[1];
        }
        return null;
    }

    /** Writes the assignment in OpenSM's format. */
    public static void write(Map<Long, Integer> lids, Writer out) throws IOException {
        for (Map.Entry<Long, Integer> e : lids.entrySet()) {
            out.write(String.format("0x%016x 0x%04x 0x%04x%n", e.getKey(), e.getValue(), e.getValue()));
        }
        out.flush();
    }
}
