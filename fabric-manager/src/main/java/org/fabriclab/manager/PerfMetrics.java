package org.fabriclab.manager;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.routing.dragonfly.RoutingMode;

/**
 * The perf manager's series, built at scrape time from its last poll (docs/metrics.md names them):
 * per directed link, per node, the top K flows and per destination. Registered on the
 * {@code PrometheusMeterRegistry}'s {@code PrometheusRegistry} beside Micrometer's own meters, so
 * that the ~35,000 links of an 18-ary 3-tree cost no meters, only the data points of one scrape;
 * a link, node or flow no longer in the poll simply has no data point. Each link's and node's
 * labels, and those of its {@code _info}, are made once per discovery and shared by all its series. Gauges without a value (Jain's index of a
 * port nothing went through) are left out rather than written as NaN.
 */
final class PerfMetrics implements MultiCollector {
    private static final String[] REASONS = PerfManager.DISCARD_REASONS;

    private final PerfManager perf;

    PerfMetrics(PerfManager perf) {
        this.perf = perf;
    }

    @Override
    public MetricSnapshots collect() {
        List<PerfManager.Link> links = perf.links();
        List<MetricSnapshot> out = new ArrayList<>(32);
        int n = links.size();
        List<CounterDataPointSnapshot> bytes = new ArrayList<>(n);
        List<CounterDataPointSnapshot> wait = new ArrayList<>(n);
        List<CounterDataPointSnapshot> discards = new ArrayList<>();
        List<CounterDataPointSnapshot> rcvErrors = new ArrayList<>();
        List<GaugeDataPointSnapshot> utilisation = new ArrayList<>(n);
        List<GaugeDataPointSnapshot> queued = new ArrayList<>(n);
        List<GaugeDataPointSnapshot> heads = new ArrayList<>(n);
        List<GaugeDataPointSnapshot> congested = new ArrayList<>(n);
        List<GaugeDataPointSnapshot> fairness = new ArrayList<>(n);
        List<GaugeDataPointSnapshot> shares = new ArrayList<>();
        List<InfoDataPointSnapshot> linkInfo = new ArrayList<>(n);
        for (PerfManager.Link l : links) {
            Labels labels = labels(l);
            if (l.infoLabels == null) {
                l.infoLabels = labels.merge(new String[] {"remote_node", "remote_port", "kind", "rate_gbps"},
                        new String[] {l.remoteNode, Integer.toString(l.remotePort), l.kind, number(l.rateGbps)});
            }
            linkInfo.add(new InfoDataPointSnapshot(l.infoLabels));
            if (l.lastBytes < 0) {
                continue; // not polled yet
            }
            bytes.add(counter(l.xmitBytes, labels));
            wait.add(counter(l.xmitWaitNs / 1e9, labels));
            for (int r = 0; r < REASONS.length; r++) {
                if (l.discardsByReason[r] > 0) {
                    discards.add(counter(l.discardsByReason[r], labels.add("reason", REASONS[r])));
                }
            }
            if (l.rcvErrors > 0) {
                rcvErrors.add(counter(l.rcvErrors, labels));
            }
            utilisation.add(gauge(ratio(l.utilisation), labels));
            if (l.sw) {
                // sparse: an empty buffer or an output no head waits for has no series (hosts have no input buffers)
                if (l.queued > 0) {
                    queued.add(gauge(l.queued, labels));
                }
                if (l.waitingHeads > 0) {
                    heads.add(gauge(l.waitingHeads, labels));
                }
                congested.add(gauge(l.congested, labels));
                if (!Double.isNaN(l.inputFairness)) {
                    fairness.add(gauge(ratio(l.inputFairness), labels));
                }
            }
        }
        for (PerfManager.Link l : mostCongested(links)) {
            Labels labels = labels(l);
            l.inputShare.forEach((in, share) -> shares.add(gauge(ratio(share[0]), labels.add("input", Integer.toString(in)))));
        }
        out.add(new InfoSnapshot(new MetricMetadata("fabric_link", "1 per directed linked port: its far end, what kind of link, its rate"),
                linkInfo));
        counter(out, "fabric_port_transmit_bytes", "bytes sent on the link", bytes);
        counter(out, "fabric_port_transmit_wait_seconds", "model time a packet was ready but the port had no credit (PortXmitWait)", wait);
        counter(out, "fabric_port_transmit_discards", "packets discarded, by reason (a reason appears once non-zero)", discards);
        counter(out, "fabric_port_receive_errors", "frames received with an error and dropped: malformed, or credits refused "
                + "(PortRcvErrors; appears once non-zero)", rcvErrors);
        gauge(out, "fabric_port_utilisation_ratio", "share of the link's rate used over the last poll, model time", utilisation);
        gauge(out, "fabric_port_queue_depth_packets", "switch ports: packets in the input buffers at the poll, every lane (absent: 0)",
                queued);
        gauge(out, "fabric_port_waiting_heads", "switch outputs: input-buffer heads waiting for it at the poll (absent: 0)", heads);
        gauge(out, "fabric_port_congested", "switch outputs: 1 if congested over the last poll (inputs competing at 0.9 utilisation "
                + "or more, or credit waits)", congested);
        gauge(out, "fabric_port_input_fairness", "switch outputs: Jain's index over the bytes each input sent through it in the last "
                + "poll (absent if none)", fairness);
        gauge(out, "fabric_port_input_share_ratio", "the " + PerfManager.SHARE_OUTPUTS + " most congested switch outputs: each "
                + "input's share over the last poll; removed after " + PerfManager.SHARE_POLLS + " polls without congestion", shares);
        nodes(out);
        jobs(out);
        flows(out);
        if (!Double.isNaN(perf.pollSeconds)) {
            gauge(out, "fabric_perf_poll_duration_seconds", "how long the last poll of every node took (wall)",
                    List.of(gauge(perf.pollSeconds, Labels.EMPTY)));
        }
        return new MetricSnapshots(out);
    }

    /**
     * The switch outputs with input shares, at most {@link PerfManager#SHARE_OUTPUTS}: those
     * congested in the last poll first, then the most utilised.
     */
    private static List<PerfManager.Link> mostCongested(List<PerfManager.Link> links) {
        List<PerfManager.Link> withShares = new ArrayList<>();
        for (PerfManager.Link l : links) {
            if (l.sw && l.lastBytes >= 0 && !l.inputShare.isEmpty()) {
                withShares.add(l);
            }
        }
        if (withShares.size() <= PerfManager.SHARE_OUTPUTS) {
            return withShares;
        }
        withShares.sort(Comparator.comparingDouble((PerfManager.Link l) -> l.congested).thenComparingDouble(l -> l.utilisation).reversed());
        return withShares.subList(0, PerfManager.SHARE_OUTPUTS);
    }

    /**
     * Hosts whose NIC counters have series: five each, four more with congestion control (three
     * control-packet series and the drops), so that {@code paper:qadaptive-2550}'s 2,550 hosts have
     * theirs (about 0.9 MB, 1.6 MB with congestion control) and the 18-ary 3-tree's 5,832 stay
     * within the scrape's 20 MB budget without them ({@code fabricctl counters} shows every host's).
     */
    static final int NIC_SERIES_HOSTS = 2_560;

    private void nodes(List<MetricSnapshot> out) {
        List<InfoDataPointSnapshot> info = new ArrayList<>();
        List<CounterDataPointSnapshot> decisions = new ArrayList<>();
        List<GaugeDataPointSnapshot> nonminimal = new ArrayList<>();
        List<CounterDataPointSnapshot> updates = new ArrayList<>();
        List<CounterDataPointSnapshot> explorations = new ArrayList<>();
        List<CounterDataPointSnapshot> moved = new ArrayList<>();
        List<GaugeDataPointSnapshot> movedMean = new ArrayList<>();
        List<CounterDataPointSnapshot> flits = new ArrayList<>();
        List<CounterDataPointSnapshot> stalled = new ArrayList<>();
        List<CounterDataPointSnapshot> sampled = new ArrayList<>();
        List<CounterDataPointSnapshot> hops = new ArrayList<>();
        List<CounterDataPointSnapshot> latency = new ArrayList<>();
        List<CounterDataPointSnapshot> control = new ArrayList<>();
        List<CounterDataPointSnapshot> controlDropped = new ArrayList<>();
        List<CounterDataPointSnapshot> marked = new ArrayList<>();
        boolean nicSeries = perf.nodes().stream().filter(n -> n.nic).count() <= NIC_SERIES_HOSTS;
        for (PerfManager.Node n : perf.nodes()) {
            if (n.labels == null) {
                n.labels = Labels.of("node", n.name);
                n.infoLabels = n.labels.merge(new String[] {"guid", "type", "level", "group", "coordinates"},
                        new String[] {String.format("0x%016x", n.guid), n.sw ? "switch" : "host", n.level, n.group, n.coordinates});
            }
            Labels labels = n.labels;
            info.add(new InfoDataPointSnapshot(n.infoLabels));
            if (n.sw) {
                decisions.add(counter(n.adaptiveMinimal, labels.add("choice", "minimal")));
                decisions.add(counter(n.adaptiveNonminimal, labels.add("choice", "nonminimal")));
                if (!Double.isNaN(n.nonminimalShare)) {
                    nonminimal.add(gauge(ratio(n.nonminimalShare), labels));
                }
            }
            if (n.nic && nicSeries) {
                flits.add(counter(n.nicRequestFlits, labels));
                stalled.add(counter(n.nicStalledCycles, labels));
                sampled.add(counter(n.nicLatencyPackets, labels));
                hops.add(counter(n.nicReceivedHops, labels));
                latency.add(counter(n.nicLatencyNs / 1e9, labels));
                if (!n.nicCc.isEmpty()) { // series of congestion control's only where the NIC runs one
                    Labels cc = labels.add("cc", n.nicCc);
                    control.add(counter(n.nicCnpsReceived, cc.add("kind", "cnp").add("direction", "received")));
                    control.add(counter(n.nicAcksReceived, cc.add("kind", "ack").add("direction", "received")));
                    control.add(counter(n.nicControlSent, cc.add("kind", "any").add("direction", "sent")));
                    controlDropped.add(counter(n.nicControlDropped, cc));
                }
            }
            if (n.ecn) {
                marked.add(counter(n.ecnMarked, labels));
            }
            if (n.learning) {
                updates.add(counter(n.qUpdates, labels));
                explorations.add(counter(n.qExplorations, labels));
                moved.add(counter(n.qChangePs / 1e12, labels));
                if (!Double.isNaN(n.qChangeMeanSeconds)) {
                    movedMean.add(gauge(n.qChangeMeanSeconds, labels));
                }
            }
        }
        out.add(new InfoSnapshot(new MetricMetadata("fabric_node", "1 per node: its GUID, type and place in the layout (empty where unknown)"),
                info));
        counter(out, "fabric_switch_adaptive_decisions", "packets an AR group routed: by a minimal port, or a detour (nonminimal)",
                decisions);
        gauge(out, "fabric_switch_nonminimal_decision_ratio", "share of a switch's adaptive decisions over the last poll that left the "
                + "minimal path (absent without decisions)", nonminimal);
        counter(out, "fabric_switch_q_updates", "Q-adaptive switches: Q-table updates (feedback from a downstream router taken)", updates);
        counter(out, "fabric_switch_q_explorations", "Q-adaptive switches: decisions that took a random port (epsilon)", explorations);
        counter(out, "fabric_switch_q_change_seconds", "Q-adaptive switches: every Q-table update's absolute change, summed (model "
                + "seconds)", moved);
        gauge(out, "fabric_switch_q_change_mean_seconds", "Q-adaptive switches: how far the Q-values moved over the last poll, "
                + "summed and divided by the table's entries (model seconds; towards 0 as learning converges)", movedMean);
        counter(out, "fabric_host_nic_request_flits", "hosts' NICs: request flits sent (Aries' Request Flits; 16-byte flits, one "
                + "header flit a packet)", flits);
        counter(out, "fabric_host_nic_request_stalled_cycles", "hosts' NICs: cycles a packet was ready but had no credit (Aries' "
                + "Request Flits Stalled Cycles; a 1 GHz NIC clock in model time)", stalled);
        counter(out, "fabric_host_nic_latency_sampled_packets", "hosts' NICs: their own packets whose latency was sampled (every one, "
                + "when its response came back; Aries' Request Packets)", sampled);
        counter(out, "fabric_host_nic_received_hops", "hosts' NICs: the sampled packets' hops summed, links between switches "
                + "(divided by the sampled packets, the mean hops)", hops);
        counter(out, "fabric_host_nic_latency_seconds", "hosts' NICs: the sampled packets' round trips summed, NIC send to the "
                + "response's return (Aries' Request Packets Cumulative Latency; model seconds; divided by the sampled packets, the mean)",
                latency);
        counter(out, "fabric_host_nic_cc_control_packets", "hosts' NICs running congestion control (label cc): control packets "
                + "received by kind (CNPs: DCQCN's rate cuts; ACKs: Swift's and RL-CC's RTT samples) and sent back as a receiver", control);
        counter(out, "fabric_host_nic_cc_control_dropped_packets", "hosts' NICs running congestion control: control packets the "
                + "NIC could not queue and dropped", controlDropped);
        counter(out, "fabric_switch_ecn_marked_packets", "switches marking ECN for DCQCN: packets marked congestion-experienced",
                marked);
    }

    /**
     * Per job ({@code --job} on the live plane: a label per job name), what its hosts received
     * of it: messages completed, their completion times summed, packets, and the packets routed
     * through an intermediate group, with that share as a gauge, and its packets by the routing
     * mode they asked for (a series per mode seen: at most the 8 modes a job); a closed-loop job's
     * iterations and their times summed (counted by its rank 0's host; absent for an open-loop job
     * and until a closed-loop job's first iteration ended), and the messages its hosts' source
     * queues refused and sent later. Series for the first
     * {@link TrafficPlan#MAX_JOBS} jobs by name only (the command lines refuse more); a job's
     * series are its hosts' NIC counters summed, so their number does not grow with the hosts.
     */
    private void jobs(List<MetricSnapshot> out) {
        TreeMap<String, long[]> byJob = new TreeMap<>();
        int modes = RoutingMode.values().length;
        for (PerfManager.Node n : perf.nodes()) {
            if (n.nic && !n.nicJob.isEmpty() && (byJob.containsKey(n.nicJob) || byJob.size() < TrafficPlan.MAX_JOBS)) {
                long[] sum = byJob.computeIfAbsent(n.nicJob, k -> new long[JOB_MODES + modes]);
                sum[0] += n.jobMessages;
                sum[1] += n.jobMessageNs;
                sum[2] += n.jobPackets;
                sum[3] += n.jobNonminimal;
                sum[4] += n.jobIterations;
                sum[5] += n.jobIterationNs;
                sum[6] += n.jobRefused;
                long[] byMode = n.jobModePackets;
                for (int m = 0; m < Math.min(modes, byMode.length); m++) {
                    sum[JOB_MODES + m] += byMode[m];
                }
            }
        }
        List<CounterDataPointSnapshot> messages = new ArrayList<>();
        List<CounterDataPointSnapshot> seconds = new ArrayList<>();
        List<CounterDataPointSnapshot> packets = new ArrayList<>();
        List<CounterDataPointSnapshot> nonminimal = new ArrayList<>();
        List<GaugeDataPointSnapshot> share = new ArrayList<>();
        List<CounterDataPointSnapshot> iterations = new ArrayList<>();
        List<CounterDataPointSnapshot> iterationSeconds = new ArrayList<>();
        List<CounterDataPointSnapshot> refused = new ArrayList<>();
        List<CounterDataPointSnapshot> modePackets = new ArrayList<>();
        byJob.forEach((job, sum) -> {
            Labels labels = Labels.of("job", job);
            messages.add(counter(sum[0], labels));
            seconds.add(counter(sum[1] / 1e9, labels));
            packets.add(counter(sum[2], labels));
            nonminimal.add(counter(sum[3], labels));
            if (sum[2] > 0) {
                share.add(gauge(ratio((double) sum[3] / sum[2]), labels));
            }
            if (sum[4] > 0) {
                iterations.add(counter(sum[4], labels));
                iterationSeconds.add(counter(sum[5] / 1e9, labels));
            }
            if (sum[4] > 0 || sum[6] > 0) {
                refused.add(counter(sum[6], labels));
            }
            for (int m = 0; m < modes; m++) {
                if (sum[JOB_MODES + m] > 0) {
                    modePackets.add(counter(sum[JOB_MODES + m], Labels.of("job", job, "mode", RoutingMode.ofCode(m).name())));
                }
            }
        });
        counter(out, "fabric_job_messages", "jobs (--job): messages received whole by the job's hosts", messages);
        counter(out, "fabric_job_message_completion_seconds", "jobs: those messages' completion times summed, creation at the sender "
                + "to the last packet's arrival (model seconds; divided by fabric_job_messages_total, the mean)", seconds);
        counter(out, "fabric_job_packets", "jobs: data packets the job's hosts received of the job", packets);
        counter(out, "fabric_job_nonminimal_packets", "jobs: of those, packets a Dragonfly's adaptive routing sent through an "
                + "intermediate group", nonminimal);
        gauge(out, "fabric_job_nonminimal_ratio", "jobs: non-minimal packets over packets received, since the job started (absent "
                + "before a packet)", share);
        counter(out, "fabric_job_iterations", "closed-loop jobs (pattern ping-pong, barrier, broadcast): iterations ended (absent "
                + "before the first)", iterations);
        counter(out, "fabric_job_iteration_seconds", "closed-loop jobs: those iterations' times summed, a round trip, a barrier or a "
                + "broadcast (model seconds; divided by fabric_job_iterations_total, the mean)", iterationSeconds);
        counter(out, "fabric_job_refused_messages", "closed-loop jobs: messages the loop sent that the sender's full source queue "
                + "refused, each queued later when it had room (none lost; --source-queue)", refused);
        counter(out, "fabric_job_mode_packets", "jobs: data packets the job's hosts received of the job, by the routing mode they "
                + "asked for (label mode; application-aware routing's choices)", modePackets);
    }

    /** Where a job's sums hold its packets by routing mode ({@link #jobs}): after its seven other sums. */
    private static final int JOB_MODES = 7;

    private void flows(List<MetricSnapshot> out) {
        List<GaugeDataPointSnapshot> top = new ArrayList<>();
        for (PerfManager.FlowRate f : perf.topFlows()) {
            top.add(gauge(Math.rint(f.bps()), Labels.of("src", f.src(), "dst", f.dst())));
        }
        gauge(out, "fabric_flow_throughput_bytes_per_second", "the top K flows by throughput over the last poll (--top-flows), model time",
                top);
        gauge(out, "fabric_flows_active", "flows that moved bytes in the last poll", List.of(gauge(perf.flowsActive, Labels.EMPTY)));
        if (!Double.isNaN(perf.flowCov)) {
            gauge(out, "fabric_flow_throughput_cov", "coefficient of variation of the active flows' throughputs over the last poll",
                    List.of(gauge(perf.flowCov, Labels.EMPTY)));
        }
        List<GaugeDataPointSnapshot> received = new ArrayList<>();
        List<GaugeDataPointSnapshot> jain = new ArrayList<>();
        List<CounterDataPointSnapshot> outOfOrder = new ArrayList<>();
        for (PerfManager.Destination d : perf.destinations()) {
            if (d.labels == null) {
                d.labels = Labels.of("node", d.node);
            }
            Labels labels = d.labels;
            received.add(gauge(Math.rint(d.receiveBps), labels));
            if (!Double.isNaN(d.jain)) {
                jain.add(gauge(ratio(d.jain), labels));
            }
            outOfOrder.add(counter(d.outOfOrder, labels));
        }
        gauge(out, "fabric_destination_receive_bytes_per_second", "what each host received over the last poll, every source, model time",
                received);
        gauge(out, "fabric_destination_flow_fairness", "Jain's index over the throughputs of the flows a host received in the last poll",
                jain);
        counter(out, "fabric_destination_out_of_order_packets", "packets a host received after a later one of the same source",
                outOfOrder);
    }

    private static Labels labels(PerfManager.Link l) {
        Labels made = l.labels;
        if (made == null) {
            made = Labels.of("node", l.node, "port", Integer.toString(l.port));
            l.labels = made;
        }
        return made;
    }

    /**
     * A ratio to six decimals: a gauge read against thresholds and drawn as colours needs no more,
     * and the 18-digit doubles of a division would add ~10 bytes to each of ~100,000 lines.
     */
    private static double ratio(double v) {
        return Math.round(v * 1e6) / 1e6;
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    private static CounterDataPointSnapshot counter(double value, Labels labels) {
        return new CounterDataPointSnapshot(value, labels, null, 0);
    }

    private static GaugeDataPointSnapshot gauge(double value, Labels labels) {
        return new GaugeDataPointSnapshot(value, labels, null);
    }

    /** A family with at least one data point (an empty family is left out: promtool and Prometheus need no HELP without samples). */
    private static void counter(List<MetricSnapshot> out, String name, String help, List<CounterDataPointSnapshot> points) {
        if (!points.isEmpty()) {
            out.add(new CounterSnapshot(new MetricMetadata(name, help), points));
        }
    }

    private static void gauge(List<MetricSnapshot> out, String name, String help, List<GaugeDataPointSnapshot> points) {
        if (!points.isEmpty()) {
            out.add(new GaugeSnapshot(new MetricMetadata(name, help), points));
        }
    }
}
