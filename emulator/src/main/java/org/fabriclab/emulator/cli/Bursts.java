package org.fabriclab.emulator.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.sim.Simulation;

/**
 * {@code emulator sim --message BYTES [--message-gap TIME]}: the flows of {@code --all-to-all} or
 * {@code --many-to-one} in messages instead of streams. Each flow creates a message's packets
 * together (queued whole in its own source queue or refused whole) and its NIC sends them as fast
 * as its turn among the host's flows comes; messages come at random (Poisson, at the flow's share
 * of {@code --load}), or every {@code --message-gap} with all flows in step. The report adds the
 * messages' completion times (creation to the last packet's delivery: mean, p99, and normalised
 * over the message's frames' time alone at the link rate), each flow's mean message time and
 * network latency, and the switches' ECN marks and the hosts' CNPs.
 *
 * @param bytes   the message's payload bytes, as given
 * @param packets the message's packets (whole packets of {@code --payload})
 * @param gapNs   the time between a flow's messages, or 0: Poisson
 */
record Bursts(long bytes, int packets, long gapNs) {
    /**
     * The messages for the command line's values, or null without {@code --message}.
     *
     * @param flowsPerHost the most flows one host sends (its source queue is split among them)
     * @param loadGiven    {@code --load} was given (the gap sets the flows' rate instead)
     * @throws IllegalArgumentException one line naming the option that does not fit
     */
    static Bursts of(String message, TimeSpan gap, boolean flowBenchmark, boolean longShort, int flowsPerHost, boolean loadGiven,
                     SimOptions sim) {
        if (message == null) {
            if (gap != null) {
                throw new IllegalArgumentException("--message-gap is the time between --message's messages: give --message BYTES too");
            }
            return null;
        }
        if (!flowBenchmark || longShort) {
            throw new IllegalArgumentException("--message sends the flows of --all-to-all or --many-to-one in messages: give one of them"
                    + (longShort ? " instead of --long-short (whose short flows are sized by --short-bytes)" : ""));
        }
        long bytes = JobSpec.bytes(message);
        if (bytes < 1 || bytes > JobSpec.MAX_MESSAGE_BYTES) {
            throw new IllegalArgumentException("Invalid value for option '--message': '" + message + "' is not a size of 1 byte to 1GiB "
                    + "(e.g. 4096, 64KiB, 1MiB)");
        }
        int payload = sim.payloadBytes();
        if (payload == 0) {
            throw new IllegalArgumentException("--message: packets carry no payload (--payload 0), so a message has no size in packets");
        }
        int queue = Simulation.flowQueuePackets(sim.sourceQueue, flowsPerHost);
        long packets = (bytes + payload - 1) / payload;
        if (packets > queue) {
            throw new IllegalArgumentException("Invalid value for option '--message': " + message + " is " + packets + " packets of "
                    + payload + " bytes' payload, more than a flow's source queue holds (" + queue + ": --source-queue " + sim.sourceQueue
                    + " over a host's " + flowsPerHost + " flows); give a smaller message or a larger --source-queue");
        }
        if (gap != null && gap.nanos() <= 0) {
            throw new IllegalArgumentException("Invalid value for option '--message-gap': '" + gap.text() + "' is no time between messages: "
                    + "give one above 0 (e.g. 20us)");
        }
        if (gap != null && loadGiven) {
            throw new IllegalArgumentException("--message-gap sets the flows' rate (a message every gap), which --load also sets: give one");
        }
        return new Bursts(bytes, (int) packets, gap == null ? 0 : gap.nanos());
    }

    /** The flows in these messages. */
    List<Simulation.Flow> apply(List<Simulation.Flow> flows) {
        return flows.stream().map(f -> f.inMessages(packets, gapNs)).toList();
    }

    /** The report's fields for run {@code r} of {@code c}. */
    Map<String, Object> report(Simulation.Report r, Simulation.Config c) {
        Simulation.Messages m = r.messages();
        double ideal = packets * (double) (FrameSizes.DATA_HEADER + c.payloadBytes()) * 8 / c.linkGbps();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("messageBytes", bytes);
        out.put("messagePackets", packets);
        out.put("messageGapNs", gapNs == 0 ? null : gapNs);
        out.put("messagesCompleted", m.completed());
        boolean any = m.completed() > 0;
        out.put("messageMeanNs", any ? m.meanNs() : null);
        out.put("messageP99Ns", any ? m.p99Ns() : null);
        out.put("messageIdealNs", ideal);
        out.put("messageNormalizedMean", any ? m.meanNs() / ideal : null);
        out.put("messageNormalizedP99", any ? m.p99Ns() / ideal : null);
        out.put("flowMessageMeanNs", nullForNaN(m.flowMeanNs()));
        out.put("flowNetworkLatencyNs", nullForNaN(m.flowNetworkLatencyNs()));
        out.put("ecnMarked", m.ecnMarked());
        out.put("cnpsReceived", m.cnpsReceived());
        return out;
    }

    private static List<Double> nullForNaN(double[] v) {
        return Arrays.stream(v).mapToObj(x -> Double.isNaN(x) ? null : x).toList();
    }
}
