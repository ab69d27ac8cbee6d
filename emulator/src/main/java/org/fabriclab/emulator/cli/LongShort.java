package org.fabriclab.emulator.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.emulator.sim.Simulation;

/**
 * {@code emulator sim --long-short N}: the RL-CC paper's recovery benchmark. A long flow (host 1
 * to host 0) runs the whole time; at a quarter of the run N short flows (hosts 2..N+1 to host 0)
 * of {@code packets} packets each start together. Reported: the long flow's bandwidth before the
 * shorts (over the eighth of the run before they start), while they run (from their start to the
 * last one's completion), over time, and its recovery time (from the last short's completion to
 * the end of the first bin in which the long flow is back at 90% of its bandwidth before); each
 * short flow's completion time (its start to its last packet's delivery) and normalised completion
 * time (over the time its frames take alone at the link rate), their mean and p99 (nearest rank).
 * The series' bins are the report's flow bins: a hundredth of the run.
 */
record LongShort(int shorts, int packets, long startNs, long durationNs) {
    /** The long flow's share of its bandwidth before the shorts that counts as recovered. */
    static final double RECOVERED = 0.9;

    /**
     * The benchmark for the command line's values.
     *
     * @throws IllegalArgumentException one line naming the option that does not fit
     */
    static LongShort of(int shorts, long shortBytes, boolean manyToOne, int hosts, SimOptions sim, long durationNs) {
        if (manyToOne) {
            throw new IllegalArgumentException("--long-short and --many-to-one both give the traffic; give one");
        }
        if (shorts < 1 || shorts + 1 >= hosts) {
            throw new IllegalArgumentException("Invalid value for option '--long-short': " + shorts + " short flows and a long one need 1.."
                    + (hosts - 2) + " short flows on a fabric of " + hosts + " hosts");
        }
        int payload = sim.payloadBytes();
        long packets = payload == 0 ? 0 : (shortBytes + payload - 1) / payload;
        if (shortBytes < 1 || packets < 1 || packets > sim.sourceQueue) {
            throw new IllegalArgumentException("Invalid value for option '--short-bytes': " + shortBytes + " bytes of " + payload
                    + "-byte payloads must make 1.." + sim.sourceQueue + " packets (the source queue, --source-queue, holds a short flow "
                    + "whole)");
        }
        return new LongShort(shorts, (int) packets, durationNs / 4, durationNs);
    }

    /** The flows: the long one first, then the shorts. */
    List<Simulation.Flow> flows() {
        return Simulation.Flow.longShort(shorts, packets, startNs, durationNs);
    }

    /** The report's fields for run {@code r} of {@code c}. */
    Map<String, Object> report(Simulation.Report r, Simulation.Config c) {
        double[] longGbps = r.flowSeriesGbps()[0];
        long bin = r.binNs();
        long[] done = Arrays.copyOfRange(r.flowCompletionNs(), 1, 1 + shorts);
        double ideal = packets * (double) (FrameSizes.DATA_HEADER + c.payloadBytes()) * 8 / c.linkGbps();
        List<Long> completion = new ArrayList<>();
        List<Double> normalised = new ArrayList<>();
        long last = -1;
        for (long d : done) {
            if (d >= 0) {
                completion.add(d);
                normalised.add(d / ideal);
                last = Math.max(last, startNs + d);
            }
        }
        double before = mean(longGbps, bin, startNs - durationNs / 8, startNs);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("flows", shorts + 1);
        m.put("shortPackets", packets);
        m.put("shortStartNs", startNs);
        m.put("shortsCompleted", completion.size());
        m.put("longGbpsBefore", before);
        m.put("longGbpsDuring", last < 0 ? null : mean(longGbps, bin, startNs, last));
        m.put("longRecoveryNs", completion.size() < shorts ? null : recovery(longGbps, bin, last, before));
        m.put("shortCompletionNs", done.length == completion.size() ? completion : Arrays.stream(done).boxed().toList());
        double[] n = normalised.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        m.put("shortNormalizedMean", n.length == 0 ? null : Arrays.stream(n).average().orElseThrow());
        m.put("shortNormalizedP99", n.length == 0 ? null : n[(int) Math.ceil(0.99 * n.length) - 1]);
        m.put("longBinNs", bin);
        m.put("longGbpsSeries", Arrays.stream(longGbps).boxed().toList());
        return m;
    }

    /** The mean of the bins wholly inside {@code [from, to)}, or of the one holding {@code from} if none is. */
    private static double mean(double[] bins, long bin, long from, long to) {
        int a = (int) ((from + bin - 1) / bin);
        int b = (int) Math.min(bins.length, to / bin);
        if (b <= a) {
            return bins[(int) Math.min(bins.length - 1, from / bin)];
        }
        double sum = 0;
        for (int k = a; k < b; k++) {
            sum += bins[k];
        }
        return sum / (b - a);
    }

    /** From {@code at} to the end of the first bin starting at or after it with the long flow back at {@link #RECOVERED} of {@code before}; null if never. */
    private static Long recovery(double[] bins, long bin, long at, double before) {
        for (int k = (int) ((at + bin - 1) / bin); k < bins.length; k++) {
            if (bins[k] >= RECOVERED * before) {
                return (k + 1) * bin - at;
            }
        }
        return null;
    }
}
