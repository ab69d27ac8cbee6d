package org.fabriclab.bench.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compares the simulator's speed in two builds on a machine whose speed drifts: both emulator
 * jars are loaded side by side in one JVM, and each round runs the same `emulator sim` command once
 * in each, the order alternating, so that a slow spell hits both alike. Prints each build's
 * packet-hops per CPU-second per round, the medians, and the median of the per-round ratios.
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar org.fabriclab.bench.tools.SimAb OLD.jar NEW.jar ROUNDS
 * [sim options...] [-- extra options... [-- old's extra options...]]} (the extra options the new build's runs only: with the same
 * jar twice, what an option costs, e.g. {@code -- --cc dcqcn}; after a second {@code --}, the old build's
 * only: one option's value against another's, e.g. {@code -- --cc swift -- --cc ack-only}) (or, unbuilt, {@code java bench/src/main/java/org/fabriclab/bench/tools/SimAb.java ...}:
 * JDK only); the
 * options default to the 1,000-host tree of docs/benchmarks.md at half load for 100 us.
 */
public class SimAb {
    public static void main(String[] a) throws Exception {
        if (a.length < 3) {
            System.err.println("usage: SimAb OLD.jar NEW.jar ROUNDS [sim options...] [-- the new one's extra options... [-- the old one's...]]");
            System.exit(2);
        }
        int rounds = Integer.parseInt(a[2]);
        List<String> given = List.of(a).subList(3, a.length);
        int split = given.indexOf("--");
        int oldSplit = split < 0 ? -1 : given.subList(split + 1, given.size()).indexOf("--");
        oldSplit = oldSplit < 0 ? given.size() : split + 1 + oldSplit;
        List<String> sim = new ArrayList<>(List.of("sim"));
        List<String> shared = split < 0 ? given : given.subList(0, split);
        sim.addAll(!shared.isEmpty() ? shared
                : List.of("--topology", "fat-tree:k=10,levels=3", "--load", "0.5", "--duration", "100us"));
        sim.add("--json");
        // options after "--" go to the new build only (the same jar twice: a feature's cost, e.g. "-- --cc dcqcn"), and
        // after a second "--" to the old one only (one value against another: "-- --cc swift -- --cc ack-only")
        List<String> newSim = new ArrayList<>(sim);
        newSim.addAll(split < 0 ? List.of() : given.subList(split + 1, oldSplit));
        sim.addAll(given.subList(Math.min(oldSplit + 1, given.size()), given.size()));
        String[] jars = {a[0], a[1]};
        double[][] speed = new double[2][rounds];
        PrintStream out = System.out;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 2; k++) {
                int j = (k + r) % 2;
                String report = simulate(jars[j], j == 0 ? sim : newSim);
                Matcher m = Pattern.compile("\"packetHopsPerCpuSecond\":([0-9.eE+-]+)").matcher(report);
                if (!m.find()) {
                    throw new IllegalStateException(jars[j] + " printed no report: " + report);
                }
                speed[j][r] = Double.parseDouble(m.group(1)) / 1e6;
            }
            out.printf("round %d: %s %.3f M, %s %.3f M packet-hops per CPU-second%n", r, jars[0], speed[0][r], jars[1], speed[1][r]);
        }
        double[] ratio = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            ratio[r] = speed[1][r] / speed[0][r];
        }
        out.printf("median: %s %.3f M, %s %.3f M; median ratio new/old %.2f (the first round includes both JITs' warm-up)%n",
                jars[0], median(speed[0]), jars[1], median(speed[1]), median(ratio));
    }

    private static final Map<String, ClassLoader> LOADERS = new HashMap<>();

    /**
     * Runs {@code emulator} with {@code args} (e.g. {@code sim ... --json}) from emulator jar {@code
     * jar}, loaded once per JVM in a class loader of its own, and returns what it printed.
     */
    static String simulate(String jar, List<String> args) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ClassLoader loader = loader(jar);
        System.setOut(new PrintStream(buf, true));
        try {
            Class<?> cli = loader.loadClass("picocli.CommandLine");
            Object main = loader.loadClass("org.fabriclab.emulator.EmulatorMain").getConstructor().newInstance();
            Object cmd = cli.getConstructor(Object.class).newInstance(main);
            cli.getMethod("execute", String[].class).invoke(cmd, (Object) args.toArray(new String[0]));
        } finally {
            System.setOut(out);
        }
        return buf.toString();
    }

    private static ClassLoader loader(String jar) throws Exception {
        ClassLoader l = LOADERS.get(jar);
        if (l == null) {
            l = new URLClassLoader(new URL[] {Path.of(jar).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
            LOADERS.put(jar, l);
        }
        return l;
    }

    /** The median ({@code n / 2}-th smallest: the upper one of an even count). */
    static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
