package org.fabriclab.routing.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The snapshot reader under a seeded mutator, as {@code NetFileFuzzTest} holds the net-file parser:
 * two sound snapshots with bytes flipped, runs cut out or put in, the file truncated or extended,
 * and counts and fields of the header and tables replaced by edge values. Each mutated file is read
 * as it is, and again "sealed" (its length field and CRC-32 made to match, as a forger would), so
 * that the checks behind the checksum are reached too. Whatever the input, the reader returns a
 * snapshot or throws its own {@link QTableSnapshotException}; any other exception fails the test,
 * naming the seed and case ({@code -Dfuzz.seed=S} replays it). An unsealed file that differs from
 * the one written is always refused, and a file that is read writes back to its own bytes.
 */
class QTableSnapshotFuzzTest {
    private static final int CASES = 4_000;
    private static final int[] EDGE_INTS = {0, 1, -1, 2, 4, 5, 20, 255, 256, 65535, 65536, Integer.MAX_VALUE, Integer.MIN_VALUE};
    private static final float[] EDGE_FLOATS = {0f, -0f, -1f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MAX_VALUE,
        Float.MIN_VALUE, 1e12f};

    @Test
    void onlySnapshotExceptionsComeOut() throws Exception {
        long seed = Long.getLong("fuzz.seed", 20261201L);
        Random random = new Random(seed);
        List<byte[]> samples = List.of(QTableSnapshotTest.snapshot(1).write(), QTableSnapshotTest.snapshot(2).write());
        int read = 0;
        int refused = 0;
        for (int c = 0; c < CASES; c++) {
            byte[] original = samples.get(random.nextInt(samples.size()));
            byte[] input = original;
            int mutations = 1 + random.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                input = mutate(input, random);
            }
            boolean changed = !Arrays.equals(input, original);
            for (boolean seal : new boolean[] {false, true}) {
                byte[] bytes = seal ? QTableSnapshotTest.sealed(input.clone()) : input;
                String where = "case " + c + (seal ? " sealed" : "") + " of seed " + seed + " (-Dfuzz.seed=" + seed + ")";
                try {
                    QTableSnapshot s = QTableSnapshot.read(bytes, "fuzz.qts");
                    read++;
                    assertTrue(seal || !changed, where + ": a changed file was read without a matching checksum");
                    assertArrayEquals(bytes, s.write(), where + ": read, then written, another file");
                } catch (QTableSnapshotException e) {
                    refused++;
                    assertEquals(QTableSnapshotException.Kind.CORRUPT, e.kind(), where);
                    assertTrue(e.getMessage().startsWith("fuzz.qts: ") && e.getMessage().length() < 1024, where + ": " + e.getMessage());
                } catch (RuntimeException | Error e) {
                    fail(where + ": " + e + "; " + bytes.length + " bytes", e);
                }
            }
        }
        // the mutator must reach both ends: files that still read (sealed value changes) and files refused
        assertTrue(read > CASES / 20 && refused > CASES, read + " read, " + refused + " refused");
    }

    private static byte[] mutate(byte[] in, Random random) {
        if (in.length == 0) {
            return new byte[] {(byte) random.nextInt(256)};
        }
        int at = random.nextInt(in.length);
        switch (random.nextInt(9)) {
            case 0: { // one byte anything
                byte[] out = in.clone();
                out[at] = (byte) random.nextInt(256);
                return out;
            }
            case 1: { // a run cut out
                int len = Math.min(in.length - at, 1 + random.nextInt(40));
                return concat(Arrays.copyOf(in, at), Arrays.copyOfRange(in, at + len, in.length));
            }
            case 2: { // a run of random bytes put in
                byte[] run = new byte[1 + random.nextInt(16)];
                random.nextBytes(run);
                return concat(concat(Arrays.copyOf(in, at), run), Arrays.copyOfRange(in, at, in.length));
            }
            case 3: // truncated
                return Arrays.copyOf(in, at);
            case 4: // extended
                return Arrays.copyOf(in, in.length + 1 + random.nextInt(64));
            case 5: { // a header field (version, counts, shape) replaced by an edge value
                int field = new int[] {4, 8, 12, 24, 28, 32, 36}[random.nextInt(7)];
                return putInt(in, field, EDGE_INTS[random.nextInt(EDGE_INTS.length)]);
            }
            case 6: // a table's rows or columns, or a fingerprint's port count, replaced (somewhere, aligned to 2)
                return putShort(in, at & ~1, (short) EDGE_INTS[random.nextInt(EDGE_INTS.length)]);
            case 7: // an int anywhere replaced by an edge value
                return putInt(in, at, EDGE_INTS[random.nextInt(EDGE_INTS.length)]);
            default: // a value replaced by an edge float, aligned to 4 from the end (values end 4 bytes before it)
                return putFloat(in, in.length - 8 - 4 * random.nextInt(Math.max(1, (in.length - 300) / 4)),
                        EDGE_FLOATS[random.nextInt(EDGE_FLOATS.length)]);
        }
    }

    private static byte[] putInt(byte[] in, int at, int v) {
        return put(in, at, 4, b -> b.putInt(at, v));
    }

    private static byte[] putShort(byte[] in, int at, short v) {
        return put(in, at, 2, b -> b.putShort(at, v));
    }

    private static byte[] putFloat(byte[] in, int at, float v) {
        return put(in, at, 4, b -> b.putFloat(at, v));
    }

    /** A copy of {@code in} with {@code write} done on it, or {@code in} if {@code size} bytes at {@code at} are not within it. */
    private static byte[] put(byte[] in, int at, int size, Consumer<ByteBuffer> write) {
        if (at < 0 || at + size > in.length) {
            return in;
        }
        byte[] out = in.clone();
        write.accept(ByteBuffer.wrap(out));
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
