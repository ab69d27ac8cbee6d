package org.fabriclab.routing.format;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The net-file parser under a seeded mutator: the real sample files (ibnetdiscover's, and our own
 * golden file) with bytes flipped, cut and inserted, lines dropped, repeated, swapped and spliced
 * from another file, numbers replaced by edge values, a byte-order mark and bytes that are not
 * UTF-8. Whatever the input, the parser returns a fabric or throws its own {@link FormatException}
 * (with a line number within the file); any other exception fails the test, naming the seed and
 * case so that it can be replayed ({@code -Dfuzz.seed=S}).
 */
class NetFileFuzzTest {
    private static final int CASES = 6_000;
    private static final String[] SAMPLES = {"ibnetdiscover-sample.net", "ibnetdiscover-c2.net", "golden/ib-ar-c1.net"};
    private static final String[] EDGE_NUMBERS = {"0", "-1", "1", "254", "255", "256", "65535", "2147483647", "2147483648",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "0x0", "0xffffffffffffffff",
        "0x10000000000000000", "0xf452140300103640", "99999999999999999999999"};
    private static final String[] FRAGMENTS = {"[", "]", "(", ")", "\"", "#", "=", "+", "\n", "\r\n", "\t", " ", "Switch", "Hca", "Ca",
        "Rt", "switchguid=", "caguid=", "\uFEFF", "\u0000", "[0]", "[255]", "\"\"", "\"S\"[1]", "x"};

    @Test
    void onlyFormatExceptionsComeOut() throws IOException {
        long seed = Long.getLong("fuzz.seed", 20261126L);
        Random random = new Random(seed);
        List<byte[]> samples = new ArrayList<>();
        for (String name : SAMPLES) {
            samples.add(resource(name));
        }
        int parsed = 0;
        int refused = 0;
        for (int c = 0; c < CASES; c++) {
            byte[] input = samples.get(random.nextInt(samples.size()));
            int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++) {
                input = mutate(input, samples, random);
            }
            boolean strict = random.nextInt(8) == 0;
            try {
                NetFile.read(reader(input, strict), "fuzz.net");
                parsed++;
            } catch (FormatException e) {
                refused++;
                long lines = new String(input, StandardCharsets.UTF_8).lines().count();
                assertTrue(e.line() >= 0 && e.line() <= Math.max(1, lines), "case " + c + " of seed " + seed + ": line " + e.line()
                        + " of " + lines + ": " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                fail("case " + c + " of seed " + seed + " (-Dfuzz.seed=" + seed + "): " + e + "\ninput:\n"
                        + new String(input, 0, Math.min(input.length, 4000), StandardCharsets.UTF_8), e);
            }
        }
        // the mutator must reach both ends: inputs that still parse and inputs that are refused
        assertTrue(parsed > CASES / 50 && refused > CASES / 2, parsed + " parsed, " + refused + " refused");
    }

    private static Reader reader(byte[] input, boolean strict) {
        InputStream in = new ByteArrayInputStream(input);
        return strict ? new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()) : TextLines.utf8(in);
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = NetFileFuzzTest.class.getResourceAsStream("/" + name)) {
            return in.readAllBytes();
        }
    }

    private static byte[] mutate(byte[] in, List<byte[]> samples, Random random) {
        if (in.length == 0) {
            return utf8(FRAGMENTS[random.nextInt(FRAGMENTS.length)]);
        }
        int at = random.nextInt(in.length);
        switch (random.nextInt(10)) {
            case 0: { // one byte anything, invalid UTF-8 included
                byte[] out = in.clone();
                out[at] = (byte) random.nextInt(256);
                return out;
            }
            case 1: { // a run of bytes cut out
                int len = Math.min(in.length - at, 1 + random.nextInt(40));
                return concat(Arrays.copyOf(in, at), Arrays.copyOfRange(in, at + len, in.length));
            }
            case 2: // a fragment of the format put in
                return insert(in, at, utf8(FRAGMENTS[random.nextInt(FRAGMENTS.length)]));
            case 3: // an edge number in place of a number
                return replaceNumber(in, at, EDGE_NUMBERS[random.nextInt(EDGE_NUMBERS.length)]);
            case 4: // truncated
                return Arrays.copyOf(in, at);
            default: { // line edits
                List<String> lines = new ArrayList<>(Arrays.asList(new String(in, StandardCharsets.ISO_8859_1).split("\n", -1)));
                int i = random.nextInt(lines.size());
                int j = random.nextInt(lines.size());
                switch (random.nextInt(5)) {
                    case 0 -> lines.remove(i);
                    case 1 -> lines.add(i, lines.get(j));
                    case 2 -> {
                        String t = lines.get(i);
                        lines.set(i, lines.get(j));
                        lines.set(j, t);
                    }
                    case 3 -> {
                        String[] other = new String(samples.get(random.nextInt(samples.size())), StandardCharsets.ISO_8859_1).split("\n");
                        lines.add(i, other[random.nextInt(other.length)]);
                    }
                    default -> lines.add(i, random.nextBoolean() ? "\u00ef\u00bb\u00bf" : "\u00c3"); // a mark's bytes, or a lead byte alone
                }
                return String.join("\n", lines).getBytes(StandardCharsets.ISO_8859_1);
            }
        }
    }

    private static byte[] replaceNumber(byte[] in, int at, String number) {
        int start = at;
        while (start < in.length && !Character.isDigit(in[start])) {
            start++;
        }
        int end = start;
        while (end < in.length && Character.isLetterOrDigit(in[end])) {
            end++;
        }
        return concat(concat(Arrays.copyOf(in, start), ascii(number)), Arrays.copyOfRange(in, end, in.length));
    }

    private static byte[] insert(byte[] in, int at, byte[] what) {
        return concat(concat(Arrays.copyOf(in, at), what), Arrays.copyOfRange(in, at, in.length));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
