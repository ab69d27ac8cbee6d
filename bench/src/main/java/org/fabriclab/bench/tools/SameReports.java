package org.fabriclab.bench.tools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Checks that a change leaves the simulator's reports as they were: runs every documented
 * simulator and scenario command (one per line of {@code commands.txt}, '#' for comments) with two
 * builds' emulator jars, each in a fresh JVM, parses both JSON reports and compares them value by
 * value, ignoring only what measures the machine (wall and CPU time and the rates made from them).
 * Numbers compare by value, so a report written by another JSON writer still compares equal.
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar org.fabriclab.bench.tools.SameReports OLD.jar NEW.jar
 * [commands.txt]} from the repository's root (or, unbuilt, {@code java
 * bench/src/main/java/org/fabriclab/bench/tools/SameReports.java ...}: JDK only), the
 * jars being {@code emulator/target/emulator-*-all.jar} of the two builds ({@code save DIR JAR}
 * instead writes one build's reports into DIR, and {@code OLD_DIR NEW.jar} compares a saved set
 * with a build). Exits 0 when every report is the same, 1 otherwise, printing each difference.
 */
public final class SameReports {
    /** Report fields that measure the machine, not the simulation. */
    private static final Set<String> VOLATILE = Set.of("wallMillis", "eventsPerSecond", "packetHopsPerSecond", "cpuMillis",
            "packetHopsPerCpuSecond", "routingMillis");

    public static void main(String[] a) throws Exception {
        if (a.length < 2) {
            System.err.println("usage: SameReports OLD.jar|OLD_DIR NEW.jar [commands.txt] | save DIR JAR [commands.txt]"
                    + " (commands.txt defaults to bench/same-reports/commands.txt, from the repository's root)");
            System.exit(2);
        }
        boolean save = a[0].equals("save");
        Path list = Path.of(a.length > (save ? 3 : 2) ? a[save ? 3 : 2] : "bench/same-reports/commands.txt");
        List<String> commands = new ArrayList<>();
        for (String line : Files.readAllLines(list)) {
            if (!line.isBlank() && !line.strip().startsWith("#")) {
                commands.add(line.strip());
            }
        }
        if (save) {
            Path dir = Path.of(a[1]);
            Files.createDirectories(dir);
            for (int i = 0; i < commands.size(); i++) {
                Files.writeString(dir.resolve(i + ".json"), run(a[2], commands.get(i)));
                System.out.println("saved " + i + ": " + commands.get(i));
            }
            return;
        }
        int same = 0;
        for (int i = 0; i < commands.size(); i++) {
            String cmd = commands.get(i);
            String old = Files.isDirectory(Path.of(a[0])) ? Files.readString(Path.of(a[0]).resolve(i + ".json")) : run(a[0], cmd);
            String now = run(a[1], cmd);
            List<String> diffs = new ArrayList<>();
            compare("", new Parser(old).value(), new Parser(now).value(), diffs);
            if (diffs.isEmpty()) {
                same++;
                System.out.println("same      " + cmd);
            } else {
                System.out.println("DIFFERENT " + cmd);
                diffs.stream().limit(20).forEach(d -> System.out.println("    " + d));
            }
        }
        System.out.println(same + " of " + commands.size() + " reports the same");
        System.exit(same == commands.size() ? 0 : 1);
    }

    private static String run(String jar, String args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("java", "-jar", jar));
        cmd.addAll(List.of(args.split("\\s+")));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException(jar + " " + args + " failed (exit " + p.exitValue() + "): " + out);
        }
        return out.strip();
    }

    private static void compare(String path, Object x, Object y, List<String> diffs) {
        if (x instanceof Map<?, ?> mx && y instanceof Map<?, ?> my) {
            for (Object k : mx.keySet()) {
                if (VOLATILE.contains((String) k)) {
                    continue;
                }
                if (!my.containsKey(k)) {
                    diffs.add(path + "." + k + ": missing in the new report");
                } else {
                    compare(path + "." + k, mx.get(k), my.get(k), diffs);
                }
            }
            for (Object k : my.keySet()) {
                if (!mx.containsKey(k) && !VOLATILE.contains((String) k)) {
                    diffs.add(path + "." + k + ": new in the new report (" + my.get(k) + ")");
                }
            }
        } else if (x instanceof List<?> lx && y instanceof List<?> ly) {
            if (lx.size() != ly.size()) {
                diffs.add(path + ": " + lx.size() + " elements, now " + ly.size());
                return;
            }
            for (int i = 0; i < lx.size(); i++) {
                compare(path + "[" + i + "]", lx.get(i), ly.get(i), diffs);
            }
        } else if (x instanceof Double dx && y instanceof Double dy) {
            if (Double.compare(dx, dy) != 0) {
                diffs.add(path + ": " + dx + ", now " + dy);
            }
        } else if (!Objects.equals(x, y)) {
            diffs.add(path + ": " + x + ", now " + y);
        }
    }

    /** Just enough JSON: objects, arrays, strings, numbers (as doubles), true, false, null. */
    private static final class Parser {
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        Object value() {
            skip();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                skip();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    skip();
                    String k = (String) value();
                    skip();
                    expect(':');
                    m.put(k, value());
                    skip();
                    if (s.charAt(i++) == '}') {
                        return m;
                    }
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++;
                skip();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    skip();
                    if (s.charAt(i++) == ']') {
                        return l;
                    }
                }
            }
            if (c == '"') {
                StringBuilder b = new StringBuilder();
                i++;
                while (s.charAt(i) != '"') {
                    char ch = s.charAt(i++);
                    if (ch == '\\') {
                        char e = s.charAt(i++);
                        b.append(switch (e) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'u' -> {
                                char u = (char) Integer.parseInt(s.substring(i, i + 4), 16);
                                i += 4;
                                yield u;
                            }
                            default -> e;
                        });
                    } else {
                        b.append(ch);
                    }
                }
                i++;
                return b.toString();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("not JSON at " + i + ": " + s.substring(i, Math.min(s.length(), i + 40)));
            }
            return Double.parseDouble(s.substring(start, i));
        }

        private void skip() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private void expect(char c) {
            if (s.charAt(i++) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + (i - 1));
            }
        }
    }
}
