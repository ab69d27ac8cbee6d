package org.fabriclab.routing.format;

import org.fabriclab.routing.text.Excerpt;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * OpenSM's {@code opensm-lfts.dump} (also what its {@code file} routing engine loads):
 *
 * <pre>
 * Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('L1_0'):
 * 0x0001 000 # Switch portguid 0x0000000000200000: 'L1_0'
 * 0x0003 001 # Channel Adapter portguid 0x0000000000100001: 'H0_0'
 * 6 lids dumped
 * </pre>
 *
 * Tables are keyed by switch GUID; the {@code portguid} comments let a reader re-map LIDs when the
 * fabric's LIDs differ from those of the run that wrote the dump. Entries without a route are left
 * out, as OpenSM does.
 *
 * <p>A plain model: it knows the format, not the engines' types; {@code LftDumpWriter} (in the
 * {@code file} engine's package) writes one from forwarding tables.
 */
public final class LftDump {
    private static final Pattern HEADER = Pattern.compile(
            "^Unicast lids \\[(\\S+?)-(\\S+?)\\] of switch (?:Lid (\\d+) )?guid (0x[0-9a-fA-F]+)\\s*(?:\\((.*)\\))?:?\\s*$");
    private static final Pattern ENTRY = Pattern.compile("^(0x[0-9a-fA-F]+)\\s+(\\d+)\\b(.*)$");
    private static final Pattern PORT_GUID = Pattern.compile("portguid\\s+(0x[0-9a-fA-F]+)");

    /** One entry: LID, port, and the destination's port GUID when the dump names it (else 0). */
    public record Entry(int lid, int port, long destinationPortGuid, int line) {
    }

    /** One switch's table as dumped. */
    public record SwitchTable(long guid, String name, int line, List<Entry> entries) {
        public SwitchTable {
            entries = List.copyOf(entries);
        }
    }

    private final String source;
    private final List<SwitchTable> tables;

    public LftDump(String source, List<SwitchTable> tables) {
        this.source = source;
        this.tables = List.copyOf(tables);
    }

    /** Where the dump was read from. */
    public String source() {
        return source;
    }

    public List<SwitchTable> tables() {
        return tables;
    }

    /**
     * Reads a dump; {@code source} names it in errors. A reader from {@link TextLines#utf8} lets a
     * byte that is not UTF-8 be refused on its own line (a strict reader's decoding error is
     * refused with the line it surfaced on).
     */
    public static LftDump read(Reader in, String source) throws IOException {
        TextLines lines = new TextLines(in, source);
        List<SwitchTable> tables = new ArrayList<>();
        long guid = 0;
        String name = null;
        int headerLine = 0;
        List<Entry> entries = null;
        String line;
        while ((line = lines.next()) != null) {
            int lineNo = lines.lineNo();
            int bad = TextLines.badByteAt(line);
            if (bad > 0) {
                throw new FormatException(source, lineNo, TextLines.notUtf8(bad));
            }
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            Matcher h = HEADER.matcher(t);
            if (h.matches()) {
                if (entries != null) {
                    tables.add(new SwitchTable(guid, name, headerLine, entries));
                }
                guid = guid(h.group(4), source, lineNo);
                name = h.group(5) == null ? "" : h.group(5).strip().replaceAll("^'|'$", "");
                headerLine = lineNo;
                entries = new ArrayList<>();
                continue;
            }
            Matcher e = ENTRY.matcher(t);
            if (e.matches()) {
                if (entries == null) {
                    throw new FormatException(source, lineNo, "LFT entry before any 'Unicast lids ... of switch' header");
                }
                int lid;
                int port;
                try {
                    lid = Integer.decode(e.group(1));
                    port = Integer.parseInt(e.group(2));
                } catch (NumberFormatException x) {
                    throw new FormatException(source, lineNo, "bad number in '" + Excerpt.bare(t) + "'");
                }
                if (lid > LidAssignment.MAX_UNICAST_LID) {
                    throw new FormatException(source, lineNo, "LID " + e.group(1) + " is not a unicast LID");
                }
                if (port > 254) {
                    throw new FormatException(source, lineNo, "port " + port + " is out of range 0..254");
                }
                Matcher pg = PORT_GUID.matcher(e.group(3));
                long dest = pg.find() ? guid(pg.group(1), source, lineNo) : 0;
                entries.add(new Entry(lid, port, dest, lineNo));
                continue;
            }
            if (t.endsWith("lids dumped")) {
                continue;
            }
            throw new FormatException(source, lineNo, "unrecognised line '" + Excerpt.bare(t)
                    + "' (expected 'Unicast lids [..] of switch ... guid 0x..', '0x<lid> <port>' or 'N lids dumped')");
        }
        if (entries != null) {
            tables.add(new SwitchTable(guid, name, headerLine, entries));
        }
        return new LftDump(source, tables);
    }

    /** A GUID written {@code 0x} and hex digits: more than 64 bits is refused with the line, not a parser's exception. */
    private static long guid(String hex, String source, int lineNo) throws FormatException {
        try {
            return Long.parseUnsignedLong(hex.substring(2), 16);
        } catch (NumberFormatException e) {
            throw new FormatException(source, lineNo, "GUID " + Excerpt.bare(hex) + " is longer than 64 bits (16 hex digits)");
        }
    }
}
