package org.fabriclab.emulator.sim;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.routing.analysis.Fairness;
import org.fabriclab.routing.fabric.Fabric;

/**
 * What each input port got of each congested switch output over an interval, from two snapshots
 * of the switches' counters (the bytes each output sent by input port, its data and its credit
 * wait). The same for the simulator's switches and the live agents': both keep a {@link
 * PortCounterArray} per node. Congested as {@link Fairness#congested} says, as the manager's
 * metrics do.
 */
public final class PortShares {
    /** One input's share of an output: its port, the node on its other end, the share of the bytes. */
    public record Input(int port, String from, double share) {
    }

    /** A congested switch output: where it leads, its utilisation, Jain's index over its inputs, each input's share. */
    public record Output(String node, int port, String to, double utilisation, double jainIndex, List<Input> inputs) {
    }

    private PortShares() {
    }

    /** Slots per port in a snapshot: the bytes by input (1..ports), then data sent, then credit wait. */
    private static int stride(int ports) {
        return ports + 3;
    }

    /** The counters of every switch in {@code counters} (indexed by node; nulls and non-switches are skipped). */
    public static long[][] snapshot(Fabric f, PortCounterArray[] counters) {
        long[][] s = new long[f.nodeCount()][];
        for (int n = 0; n < f.nodeCount(); n++) {
            if (!f.isSwitch(n) || counters[n] == null) {
                continue;
            }
            int ports = f.portCount(n);
            int w = stride(ports);
            s[n] = new long[(ports + 1) * w];
            for (int p = 1; p <= ports; p++) {
                for (int in = 1; in <= ports; in++) {
                    s[n][p * w + in] = counters[n].inputBytes(p, in);
                }
                s[n][p * w + ports + 1] = counters[n].get(p, PortCounterArray.XMIT_DATA);
                s[n][p * w + ports + 2] = counters[n].get(p, PortCounterArray.XMIT_WAIT_NS);
            }
        }
        return s;
    }

    /** The switch outputs congested between two snapshots {@code intervalNs} apart, on links of {@code linkGbps}, in node and port order. */
    public static List<Output> congested(Fabric f, long[][] before, long[][] after, long intervalNs, double linkGbps) {
        List<Output> out = new ArrayList<>();
        for (int n = 0; n < f.nodeCount(); n++) {
            if (before[n] == null || after[n] == null) {
                continue;
            }
            int ports = f.portCount(n);
            int w = stride(ports);
            for (int p = 1; p <= ports; p++) {
                int peer = f.peerNode(f.globalPort(n, p));
                if (peer == Fabric.NONE) {
                    continue;
                }
                long sent = after[n][p * w + ports + 1] - before[n][p * w + ports + 1];
                long waited = after[n][p * w + ports + 2] - before[n][p * w + ports + 2];
                double utilisation = Math.min(1, sent * 8.0 / (intervalNs * linkGbps));
                List<double[]> by = new ArrayList<>();
                long total = 0;
                for (int in = 1; in <= ports; in++) {
                    long d = after[n][p * w + in] - before[n][p * w + in];
                    if (d > 0) {
                        by.add(new double[] {in, d});
                        total += d;
                    }
                }
                if (!Fairness.congested(by.size(), utilisation, waited, intervalNs)) {
                    continue;
                }
                List<Input> inputs = new ArrayList<>();
                double[] v = new double[by.size()];
                for (int i = 0; i < by.size(); i++) {
                    int in = (int) by.get(i)[0];
                    v[i] = by.get(i)[1];
                    int from = f.peerNode(f.globalPort(n, in));
                    inputs.add(new Input(in, from == Fabric.NONE ? "?" : f.name(from), total == 0 ? 0 : v[i] / total));
                }
                out.add(new Output(f.name(n), p, f.name(peer), utilisation, v.length == 0 ? Double.NaN : Fairness.jain(v), inputs));
            }
        }
        return out;
    }
}
