package org.fabriclab.emulator.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.fabriclab.agent.core.HostPolicy;
import org.fabriclab.agent.core.LatencyHistogram;
import org.fabriclab.agent.core.NicCounters;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
import org.fabriclab.routing.fabric.Fabric;

/**
 * What a simulation measures and how it reports it: bytes offered and delivered in the measured
 * window, latency (the core's {@link LatencyHistogram}) and hops of the packets created in it,
 * reordering per pair of hosts, with flows each flow's bytes per phase and per bin and the
 * switches' counters at the edges of each phase's window, and with a series the packets, latency
 * and bytes delivered per bin of delivery time, with jobs the same per job and each message's
 * completion time. {@link #delivered} runs once per packet and allocates nothing (every array is
 * sized here). Confined to the simulation's thread.
 */
final class Measurements {
    private final Simulation.Config c;
    private final Fabric f;
    private final int hosts;
    private final int frameBytes;
    private final int[] endpointOfLid;
    /**
     * Per destination host, per source host: one more than the highest sequence number delivered
     * (0: none yet). A packet numbered below it was overtaken by a later one of its pair
     * ({@link HostPolicy#overtaken}); senders number their packets with one counter per host.
     */
    private final int[] expected;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final long[] phaseBounds;
    /** Per phase, the switches' counters at the start and at the end of its measured window. */
    private final long[][][] snapshots;
    private final long[][] flowBytes;
    /** Per flow: packets delivered, and for a sized flow the time its last one arrived (-1: not yet). */
    private final int[] flowDelivered;
    private final long[] flowDone;
    private final long binNs;
    private final long[][] flowBins;
    private final boolean withFlows;
    /** The series' bin width, or 0: no series (and the arrays below are empty). */
    private final long seriesNs;
    /** Per series bin (by delivery time): packets, their latencies' sum in ns, their bytes. */
    private final long[] seriesPackets;
    private final long[] seriesLatencyNs;
    private final long[] seriesBytes;
    private long outOfOrder;
    private long generatedBytes;
    private long deliveredBytes;
    private long delivered;
    private long hopSum;
    /** Over the measured packets: their time from the sender's NIC to delivery, summed (ns). */
    private long networkLatencySum;
    /** Packets forwarded by a switch (counted by the event loop's switch outputs). */
    long packetHops;
    /** Messages a host may have in delivery at once, per host of a job, before their completion is lost track of. */
    static final int MESSAGE_SLOTS = 1024;
    /** Fabrics up to this many switches keep their switch-to-switch distances (a byte per pair) for jobs' non-minimal share. */
    static final int MAX_DISTANCE_SWITCHES = 4096;
    private final List<Simulation.Job> jobs;
    /** Per host, its job's index, or -1 (none, or no jobs). */
    private final int[] jobOf;
    /** Per host of a job, its first message slot (its rank's); -1 for the others. */
    private final int[] slotBase;
    private final long[] jobGenerated;
    private final long[] jobDeliveredBytes;
    private final long[] jobPackets;
    /** Per job, its measured packets' times from their sender's NIC to delivery, summed. */
    private final long[] jobNetworkLatency;
    private final long[] jobNonMinimal;
    private final long[] jobMessages;
    private final LatencyHistogram[] jobLatency;
    private final LatencyHistogram[] jobMessageTime;
    /** Per closed-loop job, its iterations' times (started in the window). */
    private final LatencyHistogram[] jobIterations;
    /** Per message slot, one more than the number of the message it counts (0: none yet), and its packets still to arrive. */
    private final long[] slotMessage;
    private final int[] slotLeft;
    /** Per job, messages whose slot was taken by a later one before they completed (none unless {@link #MESSAGE_SLOTS} is too few). */
    private final long[] jobMessagesLost;
    /** Switch-to-switch distances in hops, {@code switchCount} by {@code switchCount}; null without jobs or for a larger fabric. */
    private final byte[] distance;
    /** Dragonfly routing: a packet's header says whether it was sent through an intermediate group. */
    private final boolean dragonfly;
    /** Some flow sends in messages: the arrays below are sized by the flows (else empty). */
    private final boolean withMessages;
    /** Per flow, its message's packets (0: a stream). */
    private final int[] flowMessagePackets;
    /** Per flow, its messages created in the window and completed, and their times from creation to the last packet, summed. */
    private final long[] flowMessages;
    private final long[] flowMessageNs;
    /** Per flow, its packets created in the window and delivered, and their times from the sender's NIC to delivery, summed. */
    private final long[] flowMeasured;
    private final long[] flowNetworkNs;
    private final LatencyHistogram messageTime = new LatencyHistogram();
    /**
     * Where the measured window starts: packets created from then on are measured, bytes delivered
     * from then on counted. The configuration's warm-up, or earlier once the run is steady.
     */
    private long from;
    /** Where the run ends: the configuration's duration, or the measured window's length after a steady {@link #from}. */
    private long end;
    /** With {@link Simulation.Config#steady}, the detection; null without. */
    private final SteadyState steady;
    /** When the run was found steady (the measured window's start), or -1: not (yet), or not watched. */
    private long steadyAt = -1;
    /** With {@link Simulation.Config#precise}, the precision stop; null without. */
    private final PreciseStop precise;
    /** The precision stop's base batch width, and where the batch being filled ends (-1: none). */
    private final long batchNs;
    private long nextBatch = -1;
    /**
     * The packets delivered in the window, whenever created, and their latencies (creation to
     * delivery) summed, ns: the precision stop's batches are by delivery time, as its bytes are (a
     * batch of the packets created in the window would start biased low, only the fast ones of the
     * first instants delivered); and these counts and the bytes at the last batch's end.
     */
    private long windowPackets;
    private long windowLatencyNs;
    private long batchDelivered;
    private long batchLatencyNs;
    private long batchBytes;

    Measurements(Simulation.Config c, int frameBytes, int[] endpointOfLid) {
        this.c = c;
        this.f = c.fabric();
        this.hosts = f.endpointCount();
        this.frameBytes = frameBytes;
        this.endpointOfLid = endpointOfLid;
        from = c.warmupNs();
        end = c.durationNs();
        steady = c.steady() == null ? null : new SteadyState(c.steady(), (int) (c.warmupNs() / c.steady().windowNs()));
        batchNs = c.precise() == null ? 0 : c.precise().batchNs();
        precise = c.precise() == null ? null : new PreciseStop(c.precise().rel(), batchNs, Simulation.Precise.MIN_BATCHES,
                (int) (c.measuredNs() / batchNs));
        nextBatch = c.precise() == null ? -1 : from + batchNs;
        expected = new int[Math.multiplyExact(hosts, hosts)];
        withFlows = !c.flows().isEmpty();
        TreeSet<Long> bounds = new TreeSet<>(List.of(0L, c.durationNs()));
        for (Simulation.Flow fl : c.flows()) {
            bounds.add(Math.min(fl.startNs(), c.durationNs()));
            bounds.add(Math.min(fl.stopNs(), c.durationNs()));
        }
        phaseBounds = bounds.stream().mapToLong(Long::longValue).toArray();
        snapshots = new long[2 * (phaseBounds.length - 1)][][];
        flowBytes = new long[c.flows().size()][phaseBounds.length - 1];
        flowDelivered = new int[c.flows().size()];
        flowDone = new long[c.flows().size()];
        Arrays.fill(flowDone, -1);
        binNs = Math.max(1, c.durationNs() / 100);
        flowBins = new long[c.flows().size()][(int) ((c.durationNs() + binNs - 1) / binNs)];
        seriesNs = c.seriesNs();
        int bins = seriesNs == 0 ? 0 : seriesBins(); // the configured end's: a steady run ends no later
        seriesPackets = new long[bins];
        seriesLatencyNs = new long[bins];
        seriesBytes = new long[bins];
        jobs = c.jobs();
        int js = jobs.size();
        jobOf = new int[hosts];
        slotBase = new int[hosts];
        Arrays.fill(jobOf, -1);
        Arrays.fill(slotBase, -1);
        int slots = 0;
        for (int j = 0; j < js; j++) {
            for (int e : jobs.get(j).hosts()) {
                jobOf[e] = j;
                if (jobs.get(j).messagePackets() > 1) { // a one-packet message completes with its packet: no slot
                    slotBase[e] = slots;
                    slots += MESSAGE_SLOTS;
                }
            }
        }
        slotMessage = new long[slots];
        slotLeft = new int[slots];
        jobGenerated = new long[js];
        jobDeliveredBytes = new long[js];
        jobPackets = new long[js];
        jobNetworkLatency = new long[js];
        jobNonMinimal = new long[js];
        jobMessages = new long[js];
        jobMessagesLost = new long[js];
        jobLatency = new LatencyHistogram[js];
        jobMessageTime = new LatencyHistogram[js];
        jobIterations = new LatencyHistogram[js];
        for (int j = 0; j < js; j++) {
            jobLatency[j] = new LatencyHistogram();
            jobMessageTime[j] = new LatencyHistogram();
            jobIterations[j] = new LatencyHistogram();
        }
        dragonfly = c.tables().dragonfly() != null;
        distance = js == 0 || f.switchCount() > MAX_DISTANCE_SWITCHES ? null : switchDistances(f);
        withMessages = c.flows().stream().anyMatch(Simulation.Flow::bursty);
        int n = withMessages ? c.flows().size() : 0;
        flowMessagePackets = new int[n];
        for (int i = 0; i < n; i++) {
            flowMessagePackets[i] = c.flows().get(i).messagePackets();
        }
        flowMessages = new long[n];
        flowMessageNs = new long[n];
        flowMeasured = new long[n];
        flowNetworkNs = new long[n];
    }

    /**
     * Hops of the minimal path between every two switches: the shortest over switch-to-switch
     * links, and on a fabric of groups (a Dragonfly) the shortest within the two switches' groups,
     * which is what minimal routing takes there (local, global, local; a path through a third
     * group is Valiant's, however short); 127 for unreachable or farther.
     */
    private static byte[] switchDistances(Fabric f) {
        int n = f.switchCount();
        byte[] d = new byte[n * n];
        Arrays.fill(d, Byte.MAX_VALUE);
        int[] queue = new int[n];
        byte[] dist = new byte[n];
        TreeSet<Integer> groups = new TreeSet<>();
        for (int s = 0; s < n; s++) {
            groups.add(f.group(f.switchNode(s)));
        }
        for (int s = 0; s < n; s++) {
            int own = f.group(f.switchNode(s));
            for (int g : own < 0 ? Set.of(own) : groups) {
                // from s within its group and group g (without groups: over the whole fabric)
                Arrays.fill(dist, Byte.MAX_VALUE);
                int head = 0;
                int tail = 0;
                dist[s] = 0;
                queue[tail++] = s;
                while (head < tail) {
                    int u = queue[head++];
                    int node = f.switchNode(u);
                    for (int p = 1; p <= f.portCount(node); p++) {
                        int gp = f.globalPort(node, p);
                        if (!f.isInterSwitch(gp)) {
                            continue;
                        }
                        int peer = f.peerNode(gp);
                        int v = f.switchIndex(peer);
                        boolean inside = own < 0 || f.group(peer) == own || f.group(peer) == g;
                        if (inside && dist[v] == Byte.MAX_VALUE && dist[u] + 1 < Byte.MAX_VALUE) {
                            dist[v] = (byte) (dist[u] + 1);
                            queue[tail++] = v;
                        }
                    }
                }
                for (int t = 0; t < n; t++) {
                    if (own < 0 || f.group(f.switchNode(t)) == g) {
                        d[s * n + t] = dist[t];
                    }
                }
            }
        }
        return d;
    }

    /**
     * The steady-state test's window ending at {@code now} is over: if the run is steady, the
     * measured window starts {@code now} and the run ends that window's length later. Called at
     * every window's end up to the warm-up's cap, before anything else happens at that instant;
     * once steady, nothing more.
     *
     * @return true if the run became steady at {@code now}
     */
    boolean windowEnded(long now) {
        if (steadyAt >= 0 || !steady.closeWindow()) {
            return false;
        }
        steadyAt = now;
        from = now;
        end = now + c.measuredNs();
        if (precise != null) { // nothing measured yet (the cap's window had not started): the batches start here
            nextBatch = now + batchNs;
        }
        return true;
    }

    /** With the precision stop, where the batch being filled ends (an event the caller schedules). */
    long nextBatch() {
        return nextBatch;
    }

    /**
     * A precision batch's end may be {@code now} (the one scheduled before the run for the fixed
     * warm-up's window, which a steady warm-up ending earlier left behind, is not): its counts are
     * closed, and if the estimates are precise the run ends {@code now}. Called at the scheduled
     * instant, before the events at it that were scheduled later.
     *
     * @return true if another batch follows, ending at {@link #nextBatch()}
     */
    boolean batchEnded(long now) {
        if (now != nextBatch || precise.stopped()) {
            return false;
        }
        // no packet created in the window delivered yet: the report has no mean latency to be precise about (infinite, not NaN,
        // which is a series without edges)
        boolean done = precise.close(windowPackets - batchDelivered, windowLatencyNs - batchLatencyNs, deliveredBytes - batchBytes,
                delivered == 0 ? Double.POSITIVE_INFINITY : latency.mean());
        batchDelivered = windowPackets;
        batchLatencyNs = windowLatencyNs;
        batchBytes = deliveredBytes;
        if (done) {
            end = now;
            nextBatch = -1;
            return false;
        }
        nextBatch = now + batchNs;
        return nextBatch <= end;
    }

    /** Where the run ends (it may end earlier than configured once steady). */
    long end() {
        return end;
    }

    /** Phases: the intervals between the instants at which the set of flows changes. */
    int phaseCount() {
        return phaseBounds.length - 1;
    }

    long phaseEnd(int p) {
        return phaseBounds[p + 1];
    }

    /** Where phase {@code p}'s measured window starts: after its first fifth, which lets queues settle. */
    long windowStart(int p) {
        return phaseBounds[p] + (phaseBounds[p + 1] - phaseBounds[p]) / 5;
    }

    /** Snapshot {@code i} (phase i / 2, its window's start if even, end if odd) of the switches' counters. */
    void snapshot(int i, PortCounterArray[] counters) {
        snapshots[i] = PortShares.snapshot(f, counters);
    }

    /** Host {@code e}'s source created {@code packets} packets at {@code now}. */
    void created(int e, int packets, long now) {
        if (now >= from) {
            generatedBytes += (long) packets * frameBytes;
            if (jobOf[e] >= 0) {
                jobGenerated[jobOf[e]] += (long) packets * frameBytes;
            }
        }
    }

    /** Host {@code e} received packet {@code h} at {@code t} (the caller releases the handle). */
    void delivered(int e, PacketPool pool, int h, long t) {
        int src = endpointOfLid[pool.slid(h)];
        int k = e * hosts + src;
        int seq = pool.seq(h);
        if (HostPolicy.overtaken(expected[k], seq)) {
            outOfOrder++;
        } else {
            expected[k] = seq + 1;
        }
        if (t >= from) {
            deliveredBytes += pool.bytes(h);
            windowPackets++;
            windowLatencyNs += t - pool.timestamp(h);
        }
        if (withFlows) {
            int bin = (int) Math.min(t / binNs, flowBins[0].length - 1);
            int flow = pool.flow(h);
            flowBins[flow][bin] += pool.bytes(h);
            if (++flowDelivered[flow] == c.flows().get(flow).packets()) {
                flowDone[flow] = t;
            }
            if (withMessages) {
                flowMessage(flow, pool, h, t);
            }
            int phase = Arrays.binarySearch(phaseBounds, t);
            phase = phase >= 0 ? phase : -phase - 2;
            if (phase < phaseBounds.length - 1 && t >= windowStart(phase)) {
                flowBytes[pool.flow(h)][phase] += pool.bytes(h);
            }
        }
        if (steady != null) {
            steady.delivered(t - pool.timestamp(h), pool.bytes(h));
        }
        if (seriesNs > 0) {
            int bin = (int) Math.min(t / seriesNs, seriesBins() - 1); // the run's last instant is in its last bin
            seriesPackets[bin]++;
            seriesLatencyNs[bin] += t - pool.timestamp(h);
            seriesBytes[bin] += pool.bytes(h);
        }
        if (pool.timestamp(h) >= from) {
            delivered++;
            latency.add(t - pool.timestamp(h));
            networkLatencySum += t - pool.sent(h);
            hopSum += Math.max(0, pool.hops(h) - 1);
        }
        int j = jobOf[src];
        if (j >= 0) {
            jobDelivered(j, e, src, pool, h, t);
        }
    }

    /**
     * Packet {@code h} of {@code flow} was delivered at {@code t}, its flow's {@link #flowDelivered}-th:
     * a bursty flow's messages are created whole and its packets go in order (one path per flow, the
     * NIC keeping a flow's order), so every message's-size-th packet completes a message.
     */
    private void flowMessage(int flow, PacketPool pool, int h, long t) {
        long created = pool.timestamp(h);
        if (created < from) {
            return;
        }
        flowMeasured[flow]++;
        flowNetworkNs[flow] += t - pool.sent(h);
        int k = flowMessagePackets[flow];
        if (k > 0 && flowDelivered[flow] % k == 0) {
            flowMessages[flow]++;
            flowMessageNs[flow] += t - created;
            messageTime.add(t - created);
        }
    }

    /** With bursty flows, their messages and per flow latencies ({@link Simulation.Messages}); null without. */
    private Simulation.Messages messages(PortCounterArray[] counters) {
        if (!withMessages) {
            return null;
        }
        double[] mean = new double[flowMessages.length];
        double[] network = new double[flowMessages.length];
        for (int i = 0; i < mean.length; i++) {
            mean[i] = flowMessages[i] == 0 ? Double.NaN : (double) flowMessageNs[i] / flowMessages[i];
            network[i] = flowMeasured[i] == 0 ? Double.NaN : (double) flowNetworkNs[i] / flowMeasured[i];
        }
        long marked = 0;
        long cnps = 0;
        for (PortCounterArray a : counters) {
            marked += a.getNode(PortCounterArray.ECN_MARKED);
            cnps += a.getNode(PortCounterArray.NIC_CNPS_RECEIVED);
        }
        return new Simulation.Messages(messageTime.count(), messageTime.mean(), messageTime.percentile(0.99), mean, network, marked, cnps);
    }

    /** Packet {@code h} of job {@code j}, from host {@code src}, reached host {@code e} at {@code t}. */
    private void jobDelivered(int j, int e, int src, PacketPool pool, int h, long t) {
        long created = pool.timestamp(h);
        boolean measured = created >= from;
        if (t >= from) {
            jobDeliveredBytes[j] += pool.bytes(h);
        }
        if (measured) {
            jobPackets[j]++;
            jobLatency[j].add(t - created);
            jobNetworkLatency[j] += t - pool.sent(h);
            if (distance != null && f.endpointSwitch(src) != Fabric.NONE && f.endpointSwitch(e) != Fabric.NONE) {
                int n = f.switchCount();
                int d = distance[f.switchIndex(f.endpointSwitch(src)) * n + f.switchIndex(f.endpointSwitch(e))];
                if (pool.hops(h) - 1 > d || dragonfly && DragonflyHeader.has(pool.route(h), DragonflyHeader.NONMINIMAL)) {
                    jobNonMinimal[j]++;
                }
            }
        }
        // a host's packets are numbered in order and its messages' packets go out together: message = seq / its packets
        int k = jobs.get(j).messagePackets();
        if (k == 1) {
            if (measured) {
                jobMessages[j]++;
                jobMessageTime[j].add(t - created);
            }
            return;
        }
        long message = Integer.toUnsignedLong(pool.seq(h)) / k;
        int slot = slotBase[src] + (int) (message % MESSAGE_SLOTS);
        if (slotMessage[slot] != message + 1) {
            if (slotMessage[slot] != 0 && slotLeft[slot] > 0) {
                jobMessagesLost[j]++;
            }
            slotMessage[slot] = message + 1;
            slotLeft[slot] = k;
        }
        if (--slotLeft[slot] == 0 && measured) {
            jobMessages[j]++;
            jobMessageTime[j].add(t - created);
        }
    }

    /** Closed-loop job {@code j} completed an iteration started at {@code start} at {@code end}: counted if it started in the window. */
    void iteration(int j, long start, long end) {
        if (start >= from) {
            jobIterations[j].add(end - start);
        }
    }

    /**
     * Each job's report over the measured window ({@code nsPerByte}: the links' time per byte;
     * {@code adaptiveShares}: per job, its application-aware share, or NaN).
     */
    private List<Simulation.JobReport> jobReports(PortCounterArray[] counters, double nsPerByte, double[] adaptiveShares) {
        long window = end - from;
        List<Simulation.JobReport> out = new ArrayList<>(jobs.size());
        for (int j = 0; j < jobs.size(); j++) {
            Simulation.Job job = jobs.get(j);
            double capacity = job.size() * (window / nsPerByte);
            long waitNs = 0;
            long flits = 0;
            for (int e : job.hosts()) {
                int node = f.endpointNode(e);
                waitNs += counters[node].get(1, PortCounterArray.XMIT_WAIT_NS);
                flits += counters[node].getNode(PortCounterArray.NIC_REQUEST_FLITS);
            }
            double latency = jobPackets[j] == 0 ? Double.NaN : (double) jobNetworkLatency[j] / jobPackets[j];
            double stall = flits == 0 ? Double.NaN : (double) waitNs / flits;
            double model = latency + job.messagePackets() * (frameBytes * nsPerByte + NicCounters.flits(frameBytes) * stall);
            out.add(new Simulation.JobReport(job.name(), job.size(), jobGenerated[j] / capacity, jobDeliveredBytes[j] / capacity,
                    jobLatency[j].mean(), jobLatency[j].percentile(0.99), jobPackets[j], jobDeliveredBytes[j],
                    distance == null || jobPackets[j] == 0 ? Double.NaN : (double) jobNonMinimal[j] / jobPackets[j], jobMessages[j],
                    jobMessageTime[j].mean(), jobMessageTime[j].percentile(0.99), adaptiveShares[j], jobMessagesLost[j], latency, stall,
                    model, jobIterations[j].count(), jobIterations[j].mean(), jobIterations[j].percentile(0.99)));
        }
        return List.copyOf(out);
    }

    /** The run's report. */
    Simulation.Report report(PortCounterArray[] counters, double nsPerByte, long refused, long events, long wallNanos, long cpuNanos,
                             double[] adaptiveShares) {
        long window = end - from; // the configuration's window, unless the precision stop ended it earlier
        double capacity = hosts * (window / nsPerByte);
        long dropped = 0;
        long hostPackets = 0;
        long control = 0;
        for (int n = 0; n < f.nodeCount(); n++) {
            for (int p = 1; p <= f.portCount(n); p++) {
                dropped += counters[n].get(p, PortCounterArray.XMIT_DISCARDS);
            }
            if (!f.isSwitch(n)) {
                hostPackets += counters[n].get(1, PortCounterArray.XMIT_PKTS);
                control += counters[n].getNode(PortCounterArray.NIC_CONTROL_SENT);
            }
        }
        double seconds = wallNanos / 1e9;
        List<Simulation.Phase> phases = new ArrayList<>();
        for (int p = 0; p + 1 < phaseBounds.length && withFlows; p++) {
            long measured = phaseBounds[p + 1] - windowStart(p);
            double[] gbps = new double[flowBytes.length];
            for (int i = 0; i < gbps.length; i++) {
                gbps[i] = flowBytes[i][p] * 8.0 / measured;
            }
            List<PortShares.Output> ports = snapshots[2 * p] == null || snapshots[2 * p + 1] == null || measured == 0 ? List.of()
                    : PortShares.congested(f, snapshots[2 * p], snapshots[2 * p + 1], measured, c.linkGbps());
            phases.add(new Simulation.Phase(phaseBounds[p], phaseBounds[p + 1], gbps, ports));
        }
        double[][] series = new double[flowBins.length][];
        for (int i = 0; i < series.length; i++) {
            series[i] = new double[flowBins[i].length];
            for (int b = 0; b < series[i].length; b++) {
                series[i][b] = flowBins[i][b] * 8.0 / binNs;
            }
        }
        return new Simulation.Report(generatedBytes / capacity, deliveredBytes / capacity, latency.mean(), latency.percentile(0.95),
                latency.percentile(0.99), delivered == 0 ? 0 : (double) hopSum / delivered, delivered, dropped, refused, outOfOrder,
                packetHops, events, end, wallNanos / 1_000_000, events / seconds, packetHops / seconds, cpuNanos / 1_000_000,
                packetHops / (cpuNanos / 1e9), phases, binNs, series, overTime(nsPerByte),
                delivered == 0 ? 0 : (double) networkLatencySum / delivered, completions(), jobReports(counters, nsPerByte, adaptiveShares),
                control, hostPackets, messages(counters), from, steadyAt, precision(nsPerByte));
    }

    /** With the precision stop, its intervals in the report's units; null without. */
    private Simulation.Precision precision(double nsPerByte) {
        if (precise == null) {
            return null;
        }
        PreciseStop.Estimate e = precise.result();
        long width = e.width() * batchNs;
        double capacity = hosts * (width / nsPerByte);
        return new Simulation.Precision(precise.stopped(), Double.isFinite(e.latencyHalfWidth()) ? e.latencyHalfWidth() : Double.NaN,
                Double.isFinite(e.bytesHalfWidth()) ? e.bytesHalfWidth() / capacity : Double.NaN, e.batches(), width);
    }

    /** Per flow, a sized flow's time from its start to its last packet's delivery, or -1 (unsized, or not complete). */
    private long[] completions() {
        long[] out = new long[flowDone.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = flowDone[i] < 0 ? -1 : flowDone[i] - c.flows().get(i).startNs();
        }
        return out;
    }

    /** Bins of {@code seriesNs} (positive) up to the run's end, the last one short if the end falls inside it. */
    private int seriesBins() {
        return (int) ((end + seriesNs - 1) / seriesNs);
    }

    /** The series' bins: packets delivered, their mean latency and throughput (a fraction of the hosts' link rate) per bin. */
    private List<Simulation.SeriesBin> overTime(double nsPerByte) {
        int count = seriesNs == 0 ? 0 : seriesBins();
        List<Simulation.SeriesBin> bins = new ArrayList<>(count);
        for (int b = 0; b < count; b++) {
            long start = b * seriesNs;
            long width = Math.min(seriesNs, end - start);
            double capacity = hosts * (width / nsPerByte);
            bins.add(new Simulation.SeriesBin(start, width, seriesPackets[b],
                    seriesPackets[b] == 0 ? Double.NaN : (double) seriesLatencyNs[b] / seriesPackets[b], seriesBytes[b] / capacity));
        }
        return List.copyOf(bins);
    }
}
