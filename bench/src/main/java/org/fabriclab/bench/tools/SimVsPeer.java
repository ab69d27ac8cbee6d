package org.fabriclab.bench.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The simulator's speed against a peer simulator's on a machine whose speed drifts: each round runs
 * the peer's command once (a process printing one JSON object with {@code packetHopsPerSecond} and
 * {@code wallSeconds}, as {@code shared/peers/booksim/run_booksim.sh} does), the same {@code
 * emulator sim} in a fresh JVM with this JVM's options (cold: JVM start, routing and the JIT's
 * warm-up included) and in this JVM (warm: the emulator jar loaded once, one untimed run first),
 * the order reversed every other round so that a slow spell falls on all three alike. Prints each round's packet-hops per
 * wall-second and per CPU-second for each, then the medians and the medians of the per-round ratios
 * ours/peer.
 *
 * <p>What is counted: a packet-hop is a packet leaving a router (a switch's transmission, to the
 * next router or to the destination host). The peer's figure is an estimate (BookSim's accepted
 * rate x nodes x cycles x mean routers traversed); ours is counted by the switches. Beside ours the
 * tool prints the same estimate made from our report ({@code throughput} x hosts x simulated time
 * over a packet's time on the wire x ({@code meanHops} + 1), our meanHops counting router-to-router
 * links), so that the two can be seen to agree.
 *
 * <p>Wall and CPU: the peer's wall is its own ({@code wallSeconds}: the simulator's process), its
 * CPU the whole command's (bash's {@code times} after it); ours cold is the whole process, wall and
 * CPU (every thread: the JIT's and the collector's too); ours warm is the report's simulation loop
 * ({@code wallMillis}, and {@code cpuMillis} of its one thread).
 *
 * <p>Usage: {@code java -cp bench/target/benchmarks.jar org.fabriclab.bench.tools.SimVsPeer EMULATOR.jar
 * ROUNDS PEER-COMMAND... -- sim SIM-OPTIONS...} ({@code bench/booksim-compare.sh speed} runs it). JDK
 * only; medians as {@link SimAb}'s (the upper one of an even count).
 */
public class SimVsPeer {
    private static final int PEER = 0;
    private static final int COLD = 1;
    private static final int WARM = 2;
    private static final String[] NAMES = {"peer", "ours cold", "ours warm"};

    public static void main(String[] a) throws Exception {
        int dash = List.of(a).indexOf("--");
        if (a.length < 5 || dash < 3 || dash == a.length - 1) {
            System.err.println("usage: SimVsPeer EMULATOR.jar ROUNDS PEER-COMMAND... -- sim SIM-OPTIONS...");
            System.exit(2);
        }
        String jar = a[0];
        int rounds = Integer.parseInt(a[1]);
        List<String> peer = List.of(a).subList(2, dash);
        List<String> sim = new ArrayList<>(List.of(a).subList(dash + 1, a.length));
        sim.add("--json");
        double packetNs = packetNs(sim);
        PrintStream out = System.out;
        double[][] wall = new double[3][rounds];
        double[][] cpu = new double[3][rounds];
        out.println("warm-up: one untimed run in this JVM");
        SimAb.simulate(jar, sim);
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 3; k++) {
                int which = r % 2 == 0 ? k : 2 - k;
                String line;
                if (which == PEER) {
                    Run run = command(peer);
                    double hops = number(run.stdout, "packetHopsPerSecond") * number(run.stdout, "wallSeconds");
                    wall[PEER][r] = number(run.stdout, "packetHopsPerSecond");
                    cpu[PEER][r] = hops / run.cpuSeconds;
                    line = String.format("peer: %.0f packet-hops in %.1f s wall, %.1f s CPU (throughput %s, routers per packet %s)",
                            hops, number(run.stdout, "wallSeconds"), run.cpuSeconds, field(run.stdout, "throughput"),
                            field(run.stdout, "meanHops"));
                } else if (which == COLD) {
                    // this JVM's options (the launcher's, as booksim-compare.sh gives them), in a fresh JVM
                    List<String> java = new ArrayList<>(List.of("java"));
                    java.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
                    java.addAll(List.of("-jar", jar));
                    java.addAll(sim);
                    Run run = command(java);
                    double hops = number(run.stdout, "packetHops");
                    wall[COLD][r] = hops / run.wallSeconds;
                    cpu[COLD][r] = hops / run.cpuSeconds;
                    line = String.format("ours cold: %.0f packet-hops (estimated as the peer does: %.0f) in %.1f s wall, %.1f s CPU"
                            + " (simulation loop alone %.1f s wall, %.1f s CPU)", hops, estimate(run.stdout, packetNs), run.wallSeconds,
                            run.cpuSeconds, number(run.stdout, "wallMillis") / 1e3, number(run.stdout, "cpuMillis") / 1e3);
                } else {
                    String report = SimAb.simulate(jar, sim);
                    wall[WARM][r] = number(report, "packetHopsPerSecond");
                    cpu[WARM][r] = number(report, "packetHopsPerCpuSecond");
                    line = String.format("ours warm: %.0f packet-hops in %.1f s wall, %.1f s CPU", number(report, "packetHops"),
                            number(report, "wallMillis") / 1e3, number(report, "cpuMillis") / 1e3);
                }
                out.printf("round %d: %s%n", r, line);
            }
            out.printf("round %d: packet-hops per wall-second peer %.3g, cold %.3g, warm %.3g; per CPU-second peer %.3g, cold %.3g, warm %.3g%n",
                    r, wall[PEER][r], wall[COLD][r], wall[WARM][r], cpu[PEER][r], cpu[COLD][r], cpu[WARM][r]);
        }
        for (int k = 0; k < 3; k++) {
            out.printf("median %s: %.3g packet-hops per wall-second, %.3g per CPU-second%n", NAMES[k], SimAb.median(wall[k]),
                    SimAb.median(cpu[k]));
        }
        for (int k = COLD; k <= WARM; k++) {
            out.printf("median ratio %s / peer: %.1f per wall-second, %.1f per CPU-second%n", NAMES[k], SimAb.median(ratio(wall[k], wall[PEER])),
                    SimAb.median(ratio(cpu[k], cpu[PEER])));
        }
    }

    /** A finished command: its standard output, wall seconds and the CPU seconds of its whole process tree. */
    private record Run(String stdout, double wallSeconds, double cpuSeconds) {
    }

    private static final Pattern TIMES = Pattern.compile("(\\d+)m([0-9.]+)s (\\d+)m([0-9.]+)s");

    /** Runs {@code cmd} under bash, whose {@code times} after it gives the children's CPU time. */
    private static Run command(List<String> cmd) throws IOException, InterruptedException {
        List<String> bash = new ArrayList<>(List.of("bash", "-c", "\"$@\"; s=$?; times >&2; exit $s", "bash"));
        bash.addAll(cmd);
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(bash).start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread drain = new Thread(() -> {
            try {
                p.getErrorStream().transferTo(err);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "stderr-drain");
        drain.start();
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        drain.join();
        double wall = (System.nanoTime() - t0) / 1e9;
        String stderr = err.toString(StandardCharsets.UTF_8);
        if (rc != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited with " + rc + ": " + stderr);
        }
        // bash's times: the shell's own user and system time, then its children's
        Matcher m = TIMES.matcher(stderr);
        double cpu = -1;
        for (int line = 0; m.find(); line++) {
            if (line == 1) {
                cpu = 60 * Double.parseDouble(m.group(1)) + Double.parseDouble(m.group(2)) + 60 * Double.parseDouble(m.group(3))
                        + Double.parseDouble(m.group(4));
            }
        }
        if (cpu < 0) {
            throw new IllegalStateException("no CPU times after " + String.join(" ", cmd) + ": " + stderr);
        }
        return new Run(stdout, wall, cpu);
    }

    /**
     * Packet-hops as the peer's script estimates them, from our report: packets at the accepted
     * rate over the whole simulated time, times the routers each traverses.
     */
    private static double estimate(String report, double packetNs) {
        return number(report, "throughput") * number(report, "hosts") * number(report, "simulatedNs") / packetNs
                * (number(report, "meanHops") + 1);
    }

    /** A packet's time on the wire from the sim options ({@code --packet-bytes}, {@code --link-gbps}), or NaN without them. */
    private static double packetNs(List<String> sim) {
        int bytes = sim.indexOf("--packet-bytes");
        int gbps = sim.indexOf("--link-gbps");
        if (bytes < 0 || gbps < 0) {
            return Double.NaN;
        }
        return Double.parseDouble(sim.get(bytes + 1)) * 8 / Double.parseDouble(sim.get(gbps + 1));
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\\s*([^,}]+)").matcher(json);
        if (!m.find()) {
            throw new IllegalStateException("no " + name + " in " + json);
        }
        return m.group(1).trim();
    }

    private static double number(String json, String name) {
        return Double.parseDouble(field(json, name));
    }

    private static double[] ratio(double[] x, double[] y) {
        double[] r = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            r[i] = x[i] / y[i];
        }
        return r;
    }
}
