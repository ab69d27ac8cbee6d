package org.fabriclab.ctl.wire;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * HPACK (RFC 7541) as one gRPC call needs it. Encoding writes every field as a literal without
 * indexing (a request is a handful of fields sent once: nothing to gain from the dynamic table).
 * Decoding is complete, as the server's encoder may use any representation: indexed fields from
 * the static and dynamic tables, literals with and without indexing, Huffman-coded strings and
 * table size updates. One decoder per connection: the dynamic table lives across header blocks.
 */
final class Hpack {
    /** Our SETTINGS_HEADER_TABLE_SIZE: the protocol's default, the most the server's encoder may use. */
    static final int TABLE_SIZE = 4096;
    /** Per-entry overhead counted in the table's size (RFC 7541, 4.1). */
    private static final int ENTRY_OVERHEAD = 32;
    /** The static table (RFC 7541, appendix A); index 1 is element 0. */
    private static final String[][] STATIC = {
        {":authority", ""}, {":method", "GET"}, {":method", "POST"}, {":path", "/"}, {":path", "/index.html"},
        {":scheme", "http"}, {":scheme", "https"}, {":status", "200"}, {":status", "204"}, {":status", "206"},
        {":status", "304"}, {":status", "400"}, {":status", "404"}, {":status", "500"}, {"accept-charset", ""},
        {"accept-encoding", "gzip, deflate"}, {"accept-language", ""}, {"accept-ranges", ""}, {"accept", ""},
        {"access-control-allow-origin", ""}, {"age", ""}, {"allow", ""}, {"authorization", ""}, {"cache-control", ""},
        {"content-disposition", ""}, {"content-encoding", ""}, {"content-language", ""}, {"content-length", ""},
        {"content-location", ""}, {"content-range", ""}, {"content-type", ""}, {"cookie", ""}, {"date", ""}, {"etag", ""},
        {"expect", ""}, {"expires", ""}, {"from", ""}, {"host", ""}, {"if-match", ""}, {"if-modified-since", ""},
        {"if-none-match", ""}, {"if-range", ""}, {"if-unmodified-since", ""}, {"last-modified", ""}, {"link", ""},
        {"location", ""}, {"max-forwards", ""}, {"proxy-authenticate", ""}, {"proxy-authorization", ""}, {"range", ""},
        {"referer", ""}, {"refresh", ""}, {"retry-after", ""}, {"server", ""}, {"set-cookie", ""},
        {"strict-transport-security", ""}, {"transfer-encoding", ""}, {"user-agent", ""}, {"vary", ""}, {"via", ""},
        {"www-authenticate", ""},
    };

    /** The dynamic table, newest first. */
    private final ArrayDeque<String[]> dynamic = new ArrayDeque<>();
    private int size;
    private int maxSize = TABLE_SIZE;

    /** Appends {@code name: value} as a literal field without indexing, new name, no Huffman coding. */
    static void literal(ByteArrayOutputStream out, String name, String value) {
        out.write(0);
        string(out, name);
        string(out, value);
    }

    /**
     * A header field never indexed, new name (RFC 7541, 6.2.3: 0x10): for secrets, which no
     * intermediary may keep in a compression table.
     */
    static void neverIndexed(ByteArrayOutputStream out, String name, String value) {
        out.write(0x10);
        string(out, name);
        string(out, value);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        integer(out, 0, 7, b.length);
        out.write(b, 0, b.length);
    }

    /** An integer with an N-bit prefix (RFC 7541, 5.1); {@code flags} are the first byte's high bits. */
    static void integer(ByteArrayOutputStream out, int flags, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(flags | value);
            return;
        }
        out.write(flags | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /**
     * The fields of one complete header block (HEADERS and its CONTINUATIONs joined), in order; a
     * name given twice keeps its last value (the headers a gRPC client reads are single-valued).
     */
    Map<String, String> decode(byte[] block) {
        Map<String, String> fields = new LinkedHashMap<>();
        Reader r = new Reader(block);
        while (r.pos < block.length) {
            int b = block[r.pos] & 0xff;
            if ((b & 0x80) != 0) {
                String[] f = entry(r.integer(7));
                fields.put(f[0], f[1]);
            } else if ((b & 0xc0) == 0x40) {
                String[] f = literal(r, 6);
                fields.put(f[0], f[1]);
                add(f);
            } else if ((b & 0xe0) == 0x20) {
                int newSize = r.integer(5);
                if (newSize > TABLE_SIZE) {
                    throw new IllegalStateException("HPACK: table size update to " + newSize + " above our " + TABLE_SIZE);
                }
                maxSize = newSize;
                evict(0);
            } else {
                String[] f = literal(r, 4);
                fields.put(f[0], f[1]);
            }
        }
        return fields;
    }

    private String[] literal(Reader r, int prefixBits) {
        int index = r.integer(prefixBits);
        String name = index == 0 ? r.string() : entry(index)[0];
        return new String[] {name, r.string()};
    }

    private String[] entry(int index) {
        if (index >= 1 && index <= STATIC.length) {
            return STATIC[index - 1];
        }
        int d = index - STATIC.length - 1;
        if (index < 1 || d >= dynamic.size()) {
            throw new IllegalStateException("HPACK: no table entry " + index + " (" + dynamic.size() + " dynamic)");
        }
        int i = 0;
        for (String[] e : dynamic) {
            if (i++ == d) {
                return e;
            }
        }
        throw new AssertionError();
    }

    private void add(String[] field) {
        int entrySize = field[0].length() + field[1].length() + ENTRY_OVERHEAD;
        evict(entrySize);
        if (entrySize <= maxSize) {
            dynamic.addFirst(field);
            size += entrySize;
        }
    }

    /** Drops the oldest entries until {@code room} more fits (all of them if it cannot). */
    private void evict(int room) {
        while (!dynamic.isEmpty() && size + room > maxSize) {
            String[] e = dynamic.removeLast();
            size -= e[0].length() + e[1].length() + ENTRY_OVERHEAD;
        }
    }

    /** A position in a header block. */
    private static final class Reader {
        private final byte[] in;
        private int pos;

        Reader(byte[] in) {
            this.in = in;
        }

        private int next() {
            if (pos >= in.length) {
                throw new IllegalStateException("HPACK: header block ends inside a field");
            }
            return in[pos++] & 0xff;
        }

        int integer(int prefixBits) {
            int max = (1 << prefixBits) - 1;
            int value = next() & max;
            if (value < max) {
                return value;
            }
            for (int shift = 0; shift <= 21; shift += 7) {
                int b = next();
                value += (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalStateException("HPACK: integer too large");
        }

        String string() {
            boolean huffman = pos < in.length && (in[pos] & 0x80) != 0;
            int length = integer(7);
            if (length > in.length - pos) {
                throw new IllegalStateException("HPACK: string of " + length + " bytes past the block's end");
            }
            byte[] b = huffman ? Huffman.decode(in, pos, length) : null;
            String s = huffman ? new String(b, StandardCharsets.ISO_8859_1) : new String(in, pos, length, StandardCharsets.ISO_8859_1);
            pos += length;
            return s;
        }
    }
}
