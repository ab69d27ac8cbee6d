package org.fabriclab.ctl.wire;

import java.io.ByteArrayOutputStream;

/**
 * HPACK's static Huffman code (RFC 7541, appendix B), decoding only. The code is canonical (codes
 * of one length are consecutive, in symbol order, and each length's first code follows the last
 * of the one before), so the table is the code length of each of the 257 symbols (256 is EOS), and
 * decoding walks the lengths as zlib's puff does: no tree, no per-call allocation but the output.
 */
final class Huffman {
    /** Code length in bits of symbols 0 to 256 (RFC 7541, appendix B). */
    private static final byte[] LENGTHS = {
        13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
        13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
        15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
        20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
        22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
        26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
        20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
        30,
    };
    private static final int EOS = 256;
    private static final int MAX_BITS = 30;
    /** How many codes have each length. */
    private static final int[] COUNT = new int[MAX_BITS + 1];
    /** The symbols in code order: by length, then by symbol. */
    private static final int[] SYMBOLS = new int[LENGTHS.length];

    static {
        for (byte len : LENGTHS) {
            COUNT[len]++;
        }
        int[] offset = new int[MAX_BITS + 2];
        for (int len = 1; len <= MAX_BITS; len++) {
            offset[len + 1] = offset[len] + COUNT[len];
        }
        for (int sym = 0; sym < LENGTHS.length; sym++) {
            SYMBOLS[offset[LENGTHS[sym]]++] = sym;
        }
    }

    private Huffman() {
    }

    /** The bytes {@code in[from, from + length)} encode; padding must be at most 7 one bits (the start of EOS). */
    static byte[] decode(byte[] in, int from, int length) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(length * 8 / 5 + 1);
        int code = 0;
        int first = 0;
        int index = 0;
        int len = 0;
        boolean ones = true;
        for (int i = from; i < from + length; i++) {
            for (int bit = 7; bit >= 0; bit--) {
                int b = (in[i] >> bit) & 1;
                code |= b;
                ones &= b == 1;
                len++;
                int count = COUNT[len];
                if (code - first < count) {
                    int sym = SYMBOLS[index + code - first];
                    if (sym == EOS) {
                        throw new IllegalStateException("HPACK: EOS inside a Huffman-coded string");
                    }
                    out.write(sym);
                    code = 0;
                    first = 0;
                    index = 0;
                    len = 0;
                    ones = true;
                } else {
                    if (len == MAX_BITS) {
                        throw new IllegalStateException("HPACK: not a Huffman code");
                    }
                    index += count;
                    first = (first + count) << 1;
                    code <<= 1;
                }
            }
        }
        if (len > 7 || !ones) {
            throw new IllegalStateException("HPACK: bad Huffman padding (" + len + " bits" + (ones ? "" : ", not all ones") + ")");
        }
        return out.toByteArray();
    }
}
