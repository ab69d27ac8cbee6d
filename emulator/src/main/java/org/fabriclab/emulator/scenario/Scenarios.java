package org.fabriclab.emulator.scenario;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.emulator.sim.PortShares;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.analysis.Fairness;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;

/**
 * The experiments of the InfiniBand adaptive-routing paper (Rocher-González et al., "Adaptive
 * Routing in InfiniBand Hardware"), section IV: configurations C1 (two switches joined
 * by two links, AR groups by LAG) and C2 (a two-level fat tree, AR groups by TREE), senders added
 * phase by phase as in the paper's figures, nodes named as the paper names them (A..F in C1, LIDs
 * in C2). Every flow sends at the full link rate. DR routes by the AR engine's static LFT (the same
 * as {@code minhop}); AR lets the switches choose among the groups.
 */
public final class Scenarios {
    /** One sender: {@code src} to {@code dst} from phase {@code phase} on. */
    public record Sender(String src, String dst, int phase) {
    }

    /** A static LFT entry as the paper's routing table had it: at {@code atSwitch}, LID of {@code dst} towards {@code via}. */
    public record Pin(String atSwitch, String dst, String via) {
    }

    /** A scenario: its fabric, the engine that makes its AR groups, the senders, LFT entries fixed as the paper's. */
    public record Scenario(String name, String topology, String arEngine, List<Sender> senders, String paper, List<Pin> pins) {
        int phases() {
            return senders.stream().mapToInt(Sender::phase).max().orElse(0) + 1;
        }
    }

    private static final Map<String, Scenario> ALL = new LinkedHashMap<>();

    static {
        c1("ib-ar-c1-s1", "A to D alone: DR uses one inter-switch link, AR both; the same throughput",
                new Sender("A", "D", 0));
        c1("ib-ar-c1-s2", "DR 188/94/94 Gbps (2:1:1), AR 125 each",
                new Sender("A", "D", 0), new Sender("B", "E", 0), new Sender("C", "F", 0));
        c1("ib-ar-c1-s3", "AR: fair but 75% of the inter-switch bandwidth (HoL blocking of A to D)",
                new Sender("A", "D", 0), new Sender("B", "E", 0), new Sender("C", "E", 0));
        c2("ib-ar-c2-s1", "hot spot, senders on one leaf: limited by node 4's link, DR and AR alike",
                new Sender("1", "4", 0), new Sender("2", "4", 0), new Sender("3", "4", 0));
        c2("ib-ar-c2-s2", "hot spot, senders on three leaves: as S1",
                new Sender("31", "4", 0), new Sender("37", "4", 0), new Sender("3", "4", 0));
        c2("ib-ar-c2-s3", "DR: parking lot, local 1/2, remote 1/2, 1/4, 1/6; AR: reverse parking lot 2/3 vs 1/3, then thirds, then the parking lot",
                new Sender("5", "4", 0), new Sender("2", "4", 0), new Sender("1", "4", 1), new Sender("3", "4", 2));
        c2("ib-ar-c2-s4", "two local and two remote senders: DR unfair, AR fair",
                new Sender("5", "4", 0), new Sender("2", "4", 0), new Sender("37", "4", 1), new Sender("13", "4", 2));
        // the paper's DR sent the victim up the other uplink of leaf 14 than the hot-spot flow
        ALL.put("ib-ar-c2-s5", new Scenario("ib-ar-c2-s5", "paper:ib-ar-c2", "ar-tree",
                List.of(new Sender("1", "4", 0), new Sender("37", "4", 0), new Sender("39", "28", 1)),
                "the victim 39 to 28 loses under AR (congestion spreading), not under DR",
                List.of(new Pin("SW14", "4", "SW6"), new Pin("SW14", "28", "SW12"))));
        ALL.put("ib-ar-c2-s6", new Scenario("ib-ar-c2-s6", "paper:ib-ar-c2", "ar-tree",
                List.of(new Sender("1", "4", 0), new Sender("37", "4", 0), new Sender("39", "28", 1), new Sender("13", "3", 2),
                        new Sender("5", "31", 3)),
                "as S5, then flows the other way (13 to 3, 5 to 31) get full bandwidth, DR and AR alike",
                List.of(new Pin("SW14", "4", "SW6"), new Pin("SW14", "28", "SW12"))));
    }

    private Scenarios() {
    }

    private static void c1(String name, String paper, Sender... s) {
        ALL.put(name, new Scenario(name, "paper:ib-ar-c1", "ar-lag", List.of(s), paper, List.of()));
    }

    private static void c2(String name, String paper, Sender... s) {
        ALL.put(name, new Scenario(name, "paper:ib-ar-c2", "ar-tree", List.of(s), paper, List.of()));
    }

    public static List<Scenario> all() {
        return List.copyOf(ALL.values());
    }

    /** @throws IllegalArgumentException naming the known scenarios */
    public static Scenario byName(String name) {
        Scenario s = ALL.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown scenario '" + name + "'; known: " + String.join(", ", ALL.keySet()));
        }
        return s;
    }

    /** One flow's result in one phase. */
    public record FlowResult(String src, String dst, double throughputGbps, double share) {
    }

    /**
     * One phase: the active flows and the fairness of their throughputs: Jain's index, the
     * coefficient of variation (standard deviation over mean, the RL congestion-control paper's
     * metric) and max/min; and each congested switch output with the share each input got.
     */
    public record PhaseResult(double startSeconds, double endSeconds, List<FlowResult> flows, double jainIndex,
                              double coefficientOfVariation, double maxMinRatio, List<PortShares.Output> congestedPorts) {
    }

    /**
     * A scenario's result, as the brief's command-line contract gives it, and each flow's
     * throughput over time ({@code series[flow][bin]}, Gbps, bins of {@code binSeconds}); {@code
     * live} when measured on live agents in wall-clock time, false when simulated.
     */
    public record Result(String scenario, String routing, boolean live, double linkGbps, List<PhaseResult> phases,
                         List<String> flowNames, double binSeconds, double[][] series, CongestionControl.Settings cc) {
    }

    /**
     * Runs {@code s} in the simulator: {@code adaptive} false is DR, true is AR; each phase lasts
     * {@code phaseNs} of virtual time.
     */
    public static Result simulate(Scenario s, boolean adaptive, double linkGbps, long phaseNs, long seed) throws RoutingException {
        return simulate(s, adaptive, linkGbps, phaseNs, seed, null);
    }

    /**
     * {@link #simulate(Scenario, boolean, double, long, long)} with the hosts running congestion
     * control {@code cc} (null: none; with DCQCN's the switches mark ECN).
     */
    public static Result simulate(Scenario s, boolean adaptive, double linkGbps, long phaseNs, long seed, CongestionControl.Settings cc)
            throws RoutingException {
        Fabric f = Topologies.generate(s.topology());
        ForwardingTables tables = tables(s, f);
        List<Simulation.Flow> flows = new ArrayList<>();
        long end = phaseNs * s.phases();
        for (Sender x : s.senders()) {
            flows.add(new Simulation.Flow(endpoint(f, x.src()), endpoint(f, x.dst()), x.phase() * phaseNs, end));
        }
        Simulation.Report r = Simulation.run(Simulation.Config.builder(f, tables).load(1.0).linkGbps(linkGbps).latencyNs(100).vls(2)
                .bufferPackets(8).payloadBytes(2048).durationNs(end).warmupNs(phaseNs / 5).seed(seed).adaptive(adaptive).flows(flows)
                .cc(cc).build());
        List<PhaseResult> phases = new ArrayList<>();
        for (Simulation.Phase p : r.phases()) {
            phases.add(phase(s, linkGbps, p.startNs() / 1e9, p.endNs() / 1e9, phaseNs / 1e9, p.flowGbps(), p.congestedPorts()));
        }
        return new Result(s.name(), adaptive ? "ar" : "dr", false, linkGbps, phases, flowNames(s), r.binNs() / 1e9, r.flowSeriesGbps(),
                cc);
    }

    /** The scenario's tables: its AR engine's, with the paper's pinned LFT entries. */
    private static ForwardingTables tables(Scenario s, Fabric f) throws RoutingException {
        return pinned(f, EngineChain.parse(s.arEngine())
                .route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables(), s.pins());
    }

    /** One phase's result: the senders started by then (phases of {@code phaseSeconds}), their throughput, its fairness. */
    private static PhaseResult phase(Scenario s, double linkGbps, double start, double end, double phaseSeconds, double[] gbps,
                                     List<PortShares.Output> congested) {
        List<FlowResult> active = new ArrayList<>();
        for (int i = 0; i < s.senders().size(); i++) {
            Sender x = s.senders().get(i);
            if (x.phase() * phaseSeconds <= start + phaseSeconds / 2) {
                active.add(new FlowResult(x.src(), x.dst(), gbps[i], gbps[i] / linkGbps));
            }
        }
        double[] v = active.stream().mapToDouble(FlowResult::throughputGbps).toArray();
        return new PhaseResult(start, end, active, Fairness.jain(v), Fairness.coefficientOfVariation(v), Fairness.maxMin(v), congested);
    }

    private static List<String> flowNames(Scenario s) {
        return s.senders().stream().map(x -> x.src() + " > " + x.dst()).toList();
    }

    /** Samples of each flow's throughput per live phase (the series of a live run, as the simulator's 100 bins are). */
    static final int LIVE_BINS_PER_PHASE = 10;

    /**
     * Runs {@code s} on a live emulated fabric in this JVM (agents, Netty links, hosts' token
     * buckets, wall-clock time): the tables are computed as for the simulator and written into
     * each switch's table store directly (no manager in the loop), the hosts' ports activated, and
     * each sender started at its phase, at the full link rate. First every sender runs for
     * {@code warmupMillis} and the fabric drains, so that the JIT has compiled the forwarding path
     * before anything is measured (a cold JVM forwards a fraction of the rate for its first second
     * or two). Each phase lasts {@code phaseMillis} of wall time, sampled from the receivers'
     * counters {@link #LIVE_BINS_PER_PHASE} times, and measured over its last four fifths. Two
     * cores emulate only slow links faithfully: use a small {@code linkGbps} (1 or 2), or dilate time.
     */
    public static Result live(Scenario s, boolean adaptive, double linkGbps, long phaseMillis, long warmupMillis)
            throws RoutingException, IOException, InterruptedException {
        return live(s, adaptive, linkGbps, phaseMillis, warmupMillis, TimeDilation.REAL_TIME);
    }

    /**
     * {@link #live(Scenario, boolean, double, long, long)} under time dilation {@code dilation}:
     * phases, warm-up and rates are in model time (a phase takes D times {@code phaseMillis} of
     * wall time), so fast links are emulated faithfully by a slow machine given a large enough D.
     */
    public static Result live(Scenario s, boolean adaptive, double linkGbps, long phaseMillis, long warmupMillis, TimeDilation dilation)
            throws RoutingException, IOException, InterruptedException {
        return live(s, adaptive, linkGbps, phaseMillis, warmupMillis, dilation, null);
    }

    /** {@link #live(Scenario, boolean, double, long, long, TimeDilation)} with the hosts running congestion control {@code cc} (null: none). */
    public static Result live(Scenario s, boolean adaptive, double linkGbps, long phaseMillis, long warmupMillis, TimeDilation dilation,
                              CongestionControl.Settings cc) throws RoutingException, IOException, InterruptedException {
        if (phaseMillis < LIVE_BINS_PER_PHASE || warmupMillis < 0) {
            throw new IllegalArgumentException("a live phase lasts at least " + LIVE_BINS_PER_PHASE + " ms and the warm-up is not negative; got "
                    + phaseMillis + " ms and " + warmupMillis + " ms");
        }
        Fabric f = Topologies.generate(s.topology());
        ForwardingTables tables = tables(s, f);
        // buffers of the senders' frames, as the simulated scenario's (credits in blocks: an ACK or CNP takes one)
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLinkGbps(linkGbps).withTimeDilation(dilation).withCongestionControl(cc)
                .withPacketBytes(Frames.DATA_HEADER + PAYLOAD_BYTES);
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            ModelClock clock = fabric.modelClock();
            for (int sw = 0; sw < f.switchCount(); sw++) {
                try {
                    fabric.node(f.name(f.switchNode(sw))).management().tables().apply(TableInstall.batch(tables, sw, o.vls(), adaptive));
                } catch (TableWriteException e) {
                    throw new IllegalStateException("the switch refused the scenario's tables: " + e.getMessage(), e);
                }
            }
            for (int e = 0; e < f.endpointCount(); e++) {
                var m = fabric.node(f.name(f.endpointNode(e))).management();
                m.setPort(1, tables.lids().endpointLid(e), PortState.PORT_STATE_ARMED);
                m.setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            }
            fabric.followLags(); // auto: the senders start now
            if (warmupMillis > 0) {
                for (int i = 0; i < s.senders().size(); i++) {
                    startSender(fabric, f, tables, s, i, linkGbps);
                }
                TimeUnit.NANOSECONDS.sleep(clock.wallNanos(warmupMillis * 1_000_000));
                fabric.stopTraffic();
                // and at least twice a full source queue's time at the link rate, in model time
                long queueNs = (long) (2 * SourceQueue.PACKETS * (Frames.DATA_HEADER + PAYLOAD_BYTES) * 8 / linkGbps);
                TimeUnit.NANOSECONDS.sleep(Math.max(LIVE_DRAIN_MILLIS * 1_000_000, clock.wallNanos(queueNs)));
            }
            int n = s.senders().size();
            int bins = s.phases() * LIVE_BINS_PER_PHASE;
            double[][] series = new double[n][bins];
            long[] previous = received(fabric, f, tables, s);
            long t = clock.nanos();
            long binNs = phaseMillis * 1_000_000 / LIVE_BINS_PER_PHASE;
            PortCounterArray[] counters = new PortCounterArray[f.nodeCount()];
            for (int sw = 0; sw < f.switchCount(); sw++) {
                counters[f.switchNode(sw)] = fabric.node(f.name(f.switchNode(sw))).counters();
            }
            List<List<PortShares.Output>> congested = new ArrayList<>();
            long[][] windowStart = null;
            long windowStartNs = 0;
            for (int b = 0; b < bins; b++) {
                if (b % LIVE_BINS_PER_PHASE == 0) {
                    for (int i = 0; i < n; i++) {
                        if (s.senders().get(i).phase() == b / LIVE_BINS_PER_PHASE) {
                            startSender(fabric, f, tables, s, i, linkGbps);
                        }
                    }
                }
                TimeUnit.NANOSECONDS.sleep(clock.wallNanos(t + binNs - clock.nanos()));
                long[] now = received(fabric, f, tables, s);
                long t1 = clock.nanos();
                for (int i = 0; i < n; i++) {
                    series[i][b] = (now[i] - previous[i]) * 8.0 / (t1 - t);
                }
                previous = now;
                t = t1;
                // the switches' counters at the edges of the phase's measured window (read racily: they lag by a packet or so)
                int inPhase = b % LIVE_BINS_PER_PHASE;
                if (inPhase == LIVE_BINS_PER_PHASE / 5 - 1) {
                    windowStart = PortShares.snapshot(f, counters);
                    windowStartNs = clock.nanos();
                } else if (inPhase == LIVE_BINS_PER_PHASE - 1) {
                    congested.add(PortShares.congested(f, windowStart, PortShares.snapshot(f, counters), clock.nanos() - windowStartNs,
                            linkGbps));
                }
            }
            fabric.stopTraffic();
            List<PhaseResult> phases = new ArrayList<>();
            double seconds = phaseMillis / 1e3;
            for (int phase = 0; phase < s.phases(); phase++) {
                double[] gbps = new double[n];
                for (int i = 0; i < n; i++) {
                    // the phase's last four fifths: the flows have settled after the change
                    int from = phase * LIVE_BINS_PER_PHASE + LIVE_BINS_PER_PHASE / 5;
                    int to = (phase + 1) * LIVE_BINS_PER_PHASE;
                    gbps[i] = Arrays.stream(series[i], from, to).average().orElse(0);
                }
                phases.add(phase(s, linkGbps, phase * seconds, (phase + 1) * seconds, seconds, gbps, congested.get(phase)));
            }
            return new Result(s.name(), adaptive ? "ar" : "dr", true, linkGbps, phases, flowNames(s), binNs / 1e9, series, cc);
        }
    }

    /** How long a live fabric is left to drain after the warm-up, wall time (longer when dilated: see there). */
    private static final long LIVE_DRAIN_MILLIS = 300;
    /** The senders' payload. */
    private static final int PAYLOAD_BYTES = FrameSizes.LIVE_PAYLOAD;

    /** Starts sender {@code i} of {@code s} at the full link rate. */
    private static void startSender(EmulatedFabric fabric, Fabric f, ForwardingTables tables, Scenario s, int i,
                                    double linkGbps) {
        Sender x = s.senders().get(i);
        int dlid = tables.lids().endpointLid(endpoint(f, x.dst()));
        // evenly paced, as the simulator's flows
        ((LiveHost) fabric.node(x.src())).start(new Traffic(new int[] {dlid}, TrafficPattern.ALL_TO_ALL, linkGbps, PAYLOAD_BYTES, 0, i + 1)
                .withArrivals(Arrivals.Mode.PACED));
    }

    /** Bytes each sender's flow has delivered so far, read from the receivers' sinks. */
    private static long[] received(EmulatedFabric fabric, Fabric f, ForwardingTables t, Scenario s) {
        long[] out = new long[s.senders().size()];
        for (int i = 0; i < out.length; i++) {
            Sender x = s.senders().get(i);
            int slid = t.lids().endpointLid(endpoint(f, x.src()));
            out[i] = ((LiveHost) fabric.node(x.dst())).receivedFrom(slid).join()[1];
        }
        return out;
    }

    /** The tables with the scenario's pinned LFT entries (each must be a port of the LID's AR group or the LID has none). */
    static ForwardingTables pinned(Fabric f, ForwardingTables t, List<Pin> pins) {
        if (pins.isEmpty()) {
            return t;
        }
        ForwardingTables.Builder b = ForwardingTables.builder(f, t.lids()).lanes(t.lanes()).ar(t.ar());
        for (int s = 0; s < f.switchCount(); s++) {
            for (int lid = 0; lid < t.size(); lid++) {
                b.set(s, lid, t.port(s, lid));
            }
        }
        for (Pin p : pins) {
            int sw = f.nodeByName(p.atSwitch()).orElseThrow(() -> new IllegalArgumentException("no switch '" + p.atSwitch() + "'"));
            int via = f.nodeByName(p.via()).orElseThrow(() -> new IllegalArgumentException("no node '" + p.via() + "'"));
            int port = -1;
            for (int q = 1; q <= f.portCount(sw) && port < 0; q++) {
                port = f.peerNode(f.globalPort(sw, q)) == via ? q : -1;
            }
            if (port < 0) {
                throw new IllegalArgumentException(p.atSwitch() + " has no link to " + p.via());
            }
            b.set(f.switchIndex(sw), t.lids().endpointLid(endpoint(f, p.dst())), port);
        }
        return b.build(t.engine());
    }

    private static int endpoint(Fabric f, String name) {
        int node = f.nodeByName(name).orElseThrow(() -> new IllegalArgumentException("no node named '" + name + "'"));
        return f.endpointOfPort(f.globalPort(node, 1));
    }
}
