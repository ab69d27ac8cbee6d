package org.fabriclab.emulator.sim;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.AppAwareRouting;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.routing.analysis.NoLoadLatency;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;

/**
 * A fabric in virtual time: the same {@link SwitchCore} and {@link HostCore} the live agents run,
 * driven by an {@link EventQueue} instead of Netty event loops: the other clock of "one core, two
 * clocks". Links have a rate and a propagation delay; a packet leaves when the core grants it,
 * occupies its link for its bytes at the link's rate ({@code FREE} then), and reaches the peer
 * after the delay ({@code ARRIVE}); a returned credit reaches the sender after the delay
 * ({@code CREDIT}). Hosts generate packets by a Poisson process at the offered load into a source
 * queue, from which their NIC core takes them as its send queue has room.
 *
 * <p>This class is the event loop and the wiring; the {@link Config} (with its {@link Builder})
 * says what to run, {@link TrafficSources} are the hosts' sources on top of the core's host
 * policy (the live hosts' too), {@link Measurements} counts and reports.
 *
 * <p>Deterministic: the same configuration and seed give the same events in the same order (ties
 * in time go in the order scheduled), so the same report. Nothing is allocated per packet or per
 * event once the queues have grown: packets are handles into one {@link PacketPool} shared by all
 * nodes (a handle travels with its packet), events are slots in primitive arrays.
 */
public final class Simulation {
    /**
     * One simulation.
     *
     * @param load         offered load per host as a fraction of the link rate (0..1]
     * @param payloadBytes payload of each packet; the frame adds {@link FrameSizes#DATA_HEADER}
     * @param durationNs   virtual time simulated
     * @param warmupNs     virtual time before measurement starts (packets created earlier are not measured)
     * @param adaptive     switches choose among AR groups' ports (if the engine made any); false: static routing (DR)
     * @param flows        if not empty, the traffic: these flows (each at {@code load} of the link rate, evenly
     *                     spaced), instead of every host by {@code pattern}
     * @param outputBufferPackets the switches' output buffer per port and lane (0: input-queued, as InfiniBand
     *                     switches are modelled; more: input-output queued, as SST/Merlin's router)
     * @param sourceQueuePackets each host's source queue: packets created and not yet taken by its NIC (1,024 by
     *                     default; a small one holds a source back as a NIC's injection buffer would)
     * @param seriesNs     if positive, the width of the bins of the report's {@link Report#series}: packets
     *                     delivered, mean latency and throughput over time, by delivery time, over the whole
     *                     run (the warm-up included); 0: no series
     * @param routingMode  the routing mode every host's packets ask for ({@link RoutingMode}: honoured by a
     *                     Dragonfly's adaptive routing; {@link RoutingMode#DEFAULT}, the fabric's routing as configured)
     * @param cc           the hosts' congestion control (null: none, the default); with DCQCN's the switches
     *                     mark ECN by its thresholds
     * @param jobs         if not empty, the traffic: each job's hosts by its own pattern among its ranks, at its
     *                     own load and routing mode, in messages; the hosts in no job send nothing (and
     *                     {@code pattern}, {@code load} and {@code routingMode} are the jobs' only where they say so)
     * @param arbitration  how every switch's outputs choose among the input buffers waiting for them
     *                     ({@link CrossbarArbitration}: round-robin, the default, or least recently used as SST/Merlin's)
     * @param steady       if not null, the warm-up ends when the run is steady ({@link Steady}), {@code warmupNs}
     *                     being its cap; null: the fixed warm-up of {@code warmupNs}
     * @param precise      if not null, the measured window ends once its estimates are precise ({@link Precise}),
     *                     {@code durationNs - warmupNs} being its cap, and the report gives their confidence
     *                     intervals ({@link Report#precision}); null: the whole window measured, no intervals
     *
     * <p>Tables with source routes (a torus engine's) run as Angara does: hosts write the route to
     * the destination's switch into each packet, switches forward by it (the LFTs deliver the last
     * hop) with bubble flow control on the rings.
     */
    public record Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps,
                         long latencyNs, int vls, int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed,
                         boolean adaptive, List<Flow> flows, int outputBufferPackets, long seriesNs, int sourceQueuePackets,
                         RoutingMode routingMode, CongestionControl.Settings cc, List<Job> jobs, CrossbarArbitration arbitration,
                         Steady steady, Precise precise) {
        /** With round-robin arbitration in the switches and the fixed warm-up. */
        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive, List<Flow> flows,
                      int outputBufferPackets, long seriesNs, int sourceQueuePackets, RoutingMode routingMode, CongestionControl.Settings cc,
                      List<Job> jobs) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, flows, outputBufferPackets, seriesNs, sourceQueuePackets, routingMode, cc, jobs, CrossbarArbitration.ROUND_ROBIN,
                    null, null);
        }

        /** Without jobs: every host by the pattern, or the flows. */
        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive, List<Flow> flows,
                      int outputBufferPackets, long seriesNs, int sourceQueuePackets, RoutingMode routingMode, CongestionControl.Settings cc) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, flows, outputBufferPackets, seriesNs, sourceQueuePackets, routingMode, cc, List.of());
        }

        /** Packets that ask for no routing mode ({@link RoutingMode#DEFAULT}), hosts without congestion control. */
        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive, List<Flow> flows,
                      int outputBufferPackets, long seriesNs, int sourceQueuePackets) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, flows, outputBufferPackets, seriesNs, sourceQueuePackets, RoutingMode.DEFAULT, null);
        }

        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive, List<Flow> flows) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, flows, 0, 0, SourceQueue.PACKETS);
        }

        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, List.of());
        }


        /** With adaptive routing on wherever the tables have AR groups. */
        public Config(Fabric fabric, ForwardingTables tables, TrafficPattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed, true);
        }

        public Config {
            flows = List.copyOf(flows);
            jobs = List.copyOf(jobs);
            Objects.requireNonNull(routingMode, "routingMode");
            Objects.requireNonNull(arbitration, "arbitration");
            Job.checkAll(jobs, flows, fabric.endpointCount());
            for (Flow fl : flows) {
                if (fl.src() < 0 || fl.src() >= fabric.endpointCount() || fl.dst() < 0 || fl.dst() >= fabric.endpointCount()
                        || fl.src() == fl.dst() || fl.startNs() < 0 || fl.stopNs() <= fl.startNs() || fl.packets() < 0) {
                    throw new IllegalArgumentException("flow " + fl + " needs two different hosts of the fabric, start < stop and no "
                            + "negative size");
                }
                if (fl.messagePackets() < 0 || fl.messageGapNs() < 0) {
                    throw new IllegalArgumentException("flow " + fl + ": a message has no negative size and no negative gap");
                }
            }
            int[] flowsFrom = new int[flows.isEmpty() ? 0 : fabric.endpointCount()];
            for (Flow fl : flows) {
                flowsFrom[fl.src()]++;
            }
            for (Flow fl : flows) {
                int queue = flowQueuePackets(sourceQueuePackets, flowsFrom[fl.src()]);
                if (fl.messagePackets() > queue) {
                    throw new IllegalArgumentException("a message of " + fl.messagePackets() + " packets does not fit flow " + fl.src() + " -> "
                            + fl.dst() + "'s source queue (" + queue + " packets: the host's " + sourceQueuePackets + " over its "
                            + flowsFrom[fl.src()] + " flows); take smaller messages or a larger source queue");
                }
            }
            if (!(load > 0 && load <= 1)) {
                throw new IllegalArgumentException("load " + load + " is not in (0, 1]: it is a fraction of the link rate");
            }
            if (linkGbps <= 0 || latencyNs < 0 || vls < 1 || bufferPackets < 1) {
                throw new IllegalArgumentException("link rate, buffers and lanes must be positive and the delay not negative");
            }
            if (sourceQueuePackets < 1 || sourceQueuePackets > SourceQueue.MAX_PACKETS) {
                throw new IllegalArgumentException("a source queue of " + sourceQueuePackets + " packets is outside 1.." + SourceQueue.MAX_PACKETS);
            }
            if (outputBufferPackets < 0 || outputBufferPackets > SwitchCore.MAX_OUTPUT_BUFFER) {
                throw new IllegalArgumentException("an output buffer of " + outputBufferPackets + " packets is outside 0.."
                        + SwitchCore.MAX_OUTPUT_BUFFER);
            }
            if (outputBufferPackets > 0 && tables.sourceRoutes() != null) {
                throw new IllegalArgumentException(tables.engine() + "'s source routes keep deadlock freedom by bubble flow control "
                        + "on the input buffers, which output buffers would bypass: simulate them input-queued (no --output-buffer)");
            }
            if (payloadBytes < 0 || payloadBytes > FrameSizes.MAX_PAYLOAD) {
                throw new IllegalArgumentException("payload " + payloadBytes + " bytes is outside 0.." + FrameSizes.MAX_PAYLOAD);
            }
            if (durationNs > EventQueue.MAX_TIME / 2) {
                throw new IllegalArgumentException("a duration of " + durationNs + " ns is beyond the simulator's clock (" + EventQueue.MAX_TIME / 2 + " ns)");
            }
            if (durationNs <= 0 || warmupNs < 0 || warmupNs >= durationNs) {
                throw new IllegalArgumentException("the warm-up (" + warmupNs + " ns) must be shorter than the duration (" + durationNs + " ns)");
            }
            if (steady != null && steady.windowNs() == 0) {
                // the band over as long as is measured, or shorter if the cap would not hold the test's windows
                long fit = warmupNs * Steady.WINDOWS / steady.minWindows();
                steady = new Steady(steady.tolerance(), Math.max(1, Math.min(durationNs - warmupNs, fit) / Steady.WINDOWS), steady.drift());
            }
            if (steady != null && !flows.isEmpty()) {
                throw new IllegalArgumentException("flows are measured per phase, each over its last four fifths: a run of flows has no "
                        + "one warm-up to end when steady");
            }
            if (steady != null && warmupNs / steady.windowNs() > Steady.MAX_WINDOWS) {
                throw new IllegalArgumentException("the steady-state test in windows of " + steady.windowNs() + " ns up to the warm-up's "
                        + "cap (" + warmupNs + " ns) would take more than " + Steady.MAX_WINDOWS + " windows; take wider windows");
            }
            if (steady != null && steady.minWindows() * steady.windowNs() > warmupNs) {
                throw new IllegalArgumentException("the steady-state test needs " + steady.minWindows() + " windows of " + steady.windowNs()
                        + " ns within the warm-up's cap (" + warmupNs + " ns): give a longer warm-up or narrower windows"
                        + (steady.drift() > 0 ? " (its drift is judged over the run's last half, from " + steady.minWindows() + " windows on)" : ""));
            }
            if (precise != null && !flows.isEmpty()) {
                throw new IllegalArgumentException("flows are measured per phase, each over its last four fifths: a run of flows has no "
                        + "one measured window to end when precise");
            }
            if (precise != null) {
                precise = precise.resolved(durationNs - warmupNs, steady);
            }
            if (seriesNs < 0 || seriesNs > 0 && (durationNs + seriesNs - 1) / seriesNs > MAX_SERIES_BINS) {
                throw new IllegalArgumentException("a series in bins of " + seriesNs + " ns over " + durationNs + " ns would have more than "
                        + MAX_SERIES_BINS + " bins; take wider bins");
            }
            if (fabric.endpointCount() < 2) {
                throw new IllegalArgumentException("a simulation needs at least two hosts");
            }
            if (fabric.endpointCount() > MAX_HOSTS) {
                throw new IllegalArgumentException("the fabric has " + fabric.endpointCount() + " hosts; the simulator takes at most "
                        + MAX_HOSTS + " (it keeps 4 bytes of reordering state per pair of hosts)");
            }
            if (fabric.nodeCount() >= EventQueue.MAX_NODES) {
                throw new IllegalArgumentException("the fabric has " + fabric.nodeCount() + " nodes; the simulator takes at most "
                        + (EventQueue.MAX_NODES - 1));
            }
            for (int n = 0; n < fabric.nodeCount(); n++) {
                if (fabric.portCount(n) > EventQueue.MAX_PORTS - 2) {
                    throw new IllegalArgumentException("node " + fabric.name(n) + " has " + fabric.portCount(n)
                            + " ports; the simulator takes at most " + (EventQueue.MAX_PORTS - 2)
                            + " per node, as an LFT can name (255 means no route)");
                }
            }
            if (tables.dragonfly() != null && tables.dragonfly().algorithm().vcs() > vls) {
                throw new IllegalArgumentException(tables.engine() + " needs " + tables.dragonfly().algorithm().vcs()
                        + " virtual channels to be deadlock-free, but the switches have " + vls + "; run with --vls "
                        + tables.dragonfly().algorithm().vcs());
            }
            if (tables.ar() != null && tables.ar().laneCount() > vls) { // the lane turns are written with AR off too
                throw new IllegalArgumentException(tables.engine() + "'s tables move packets to lane " + (tables.ar().laneCount() - 1)
                        + " (its detours' deadlock freedom needs " + tables.ar().laneCount() + " lanes), but the switches have " + vls
                        + "; run with at least " + tables.ar().laneCount() + " lanes (--vls)");
            }
        }

        /** A configuration of {@code fabric} routed by {@code tables}, with the command line's defaults for the rest. */
        public static Builder builder(Fabric fabric, ForwardingTables tables) {
            return new Builder(fabric, tables);
        }

        /** A builder holding this configuration, to change some of it. */
        public Builder toBuilder() {
            return new Builder(fabric, tables).pattern(pattern).load(load).linkGbps(linkGbps).latencyNs(latencyNs).vls(vls)
                    .bufferPackets(bufferPackets).payloadBytes(payloadBytes).durationNs(durationNs).warmupNs(warmupNs).seed(seed)
                    .adaptive(adaptive).flows(flows).outputBufferPackets(outputBufferPackets).seriesNs(seriesNs)
                    .sourceQueuePackets(sourceQueuePackets).routingMode(routingMode).cc(cc).jobs(jobs).arbitration(arbitration)
                    .steady(steady).precise(precise);
        }

        /** The virtual time measured: the duration less the warm-up (after a steady warm-up too). */
        public long measuredNs() {
            return durationNs - warmupNs;
        }
    }

    /**
     * Steady-state detection, as BookSim2 and other network simulators end their warm-up: the run
     * is watched in windows of {@code windowNs} from its start, and at the end of every window it
     * is steady when the last {@link #WINDOWS} windows' mean latencies and throughputs each lie
     * within {@code tolerance} of their mean and, with {@code drift} above 0, the least-squares
     * drift of the windows' mean latency and of their throughput over the last half of the run so
     * far lies within {@code drift} of that half's mean ({@link SteadyState}: from {@link
     * #minWindows} windows on). The measured window (the configuration's duration less its
     * warm-up) then starts there and the run ends after it; the configuration's warm-up is the
     * cap: a run not steady by then is measured after it, as without detection. Windows are
     * simulated time, so a seed gives the same run. A {@code windowNs} of 0 is a tenth of the
     * measured window (the band then looks back over as long as is measured after it), or if
     * shorter the width at which {@link #minWindows} windows fill the warm-up's cap: the
     * configuration sets it. A {@code drift} of 0 is the
     * band alone, the test before issue 16's fix (it calls slow drifts steady).
     */
    public record Steady(double tolerance, long windowNs, double drift) {
        /** Windows the band looks back over. */
        public static final int WINDOWS = 10;
        /** The tolerance unless given: BookSim2's warm-up threshold. */
        public static final double DEFAULT_TOLERANCE = 0.05;
        /**
         * The drift tolerance unless given: over the last half of the run, 2% of its mean (replayed on
         * the recorded series, docs/benchmarks.md: 1% holds Q-adaptive at UR 0.8 to the 900 us cap where
         * 2% ends it at 740 us within 0.4% of the fixed warm-up's latency).
         */
        public static final double DEFAULT_DRIFT = 0.02;
        /** Windows up to the warm-up's cap a run may have (each is an event scheduled before the run). */
        public static final int MAX_WINDOWS = 100_000;

        public Steady {
            if (!(tolerance > 0 && tolerance < 1)) {
                throw new IllegalArgumentException("a steady-state tolerance of " + tolerance + " is not in (0, 1): it is a fraction of "
                        + "the mean (0.05: within 5%)");
            }
            if (windowNs < 0) {
                throw new IllegalArgumentException("a steady-state window of " + windowNs + " ns is negative");
            }
            if (!(drift >= 0 && drift < 1)) {
                throw new IllegalArgumentException("a steady-state drift tolerance of " + drift + " is not in [0, 1): it is a fraction of "
                        + "the mean (0.02: a drift within 2% over the run's last half; 0: no drift test)");
            }
        }

        /** With the default drift tolerance. */
        public Steady(double tolerance, long windowNs) {
            this(tolerance, windowNs, DEFAULT_DRIFT);
        }

        /** The windows a run must have closed before it can be steady: the band's, or twice it with the drift (its half). */
        public int minWindows() {
            return drift > 0 ? 2 * WINDOWS : WINDOWS;
        }
    }

    /**
     * The precision stop, as network simulators end a sample period (BookSim2) and the simulation
     * literature's sequential batch means (Law and Carson) do: once the warm-up ends (fixed, or
     * {@link Steady}'s), the measured window runs in batches of simulated time and ends at the end of
     * the first batch at which the 95% confidence intervals of the mean packet latency and of the
     * throughput, by non-overlapping batch means over at least {@link #MIN_BATCHES} batches, each
     * have a half-width within {@code rel} of their mean and the batch means show no significant
     * lag-1 autocorrelation (else the batches double; {@link PreciseStop}). The configuration's
     * window ({@code durationNs - warmupNs}) is the cap: a run never precise measures all of it.
     * {@code batchNs}, the base batch's width: 0 is the configuration's choice, the steady-state
     * window if there is one, but no wider than the window over {@code 2 MIN_BATCHES} (so that a
     * doubling fits), and without one the window over {@code 2 MIN_BATCHES}; never narrower than the
     * window over {@link #MAX_BASE_BATCHES}.
     */
    public record Precise(double rel, long batchNs) {
        /** The relative half-width unless given: 1% (docs/benchmarks.md, "A measurement that ends when precise"). */
        public static final double DEFAULT_REL = 0.01;
        /** The fewest batches an interval is taken over. */
        public static final int MIN_BATCHES = 20;
        /** The most base batches a window is cut into (each a batch's counts, kept to the end). */
        public static final int MAX_BASE_BATCHES = 1 << 16;

        public Precise {
            if (!(rel > 0 && rel < 1)) {
                throw new IllegalArgumentException("a precision of " + rel + " is not in (0, 1): it is the confidence interval's "
                        + "half-width over the mean (0.01: within 1%)");
            }
            if (batchNs < 0) {
                throw new IllegalArgumentException("a precision batch of " + batchNs + " ns is negative");
            }
        }

        /** With the configuration's batch width. */
        public Precise(double rel) {
            this(rel, 0);
        }

        /** The base batch's width for a window of {@code measuredNs} after {@code steady}'s warm-up (or a fixed one: null). */
        Precise resolved(long measuredNs, Steady steady) {
            long fit = measuredNs / (2 * MIN_BATCHES);
            long w = batchNs > 0 ? batchNs : steady != null ? Math.min(steady.windowNs(), fit) : fit;
            w = Math.max(w, Math.max(1, (measuredNs + MAX_BASE_BATCHES - 1) / MAX_BASE_BATCHES));
            if ((long) MIN_BATCHES * w > measuredNs) {
                throw new IllegalArgumentException("the precision stop needs " + MIN_BATCHES + " batches of " + w + " ns within the "
                        + "measured window (" + measuredNs + " ns: the duration less the warm-up): measure longer");
            }
            return w == batchNs ? this : new Precise(rel, w);
        }
    }

    /**
     * Builds a {@link Config}: the defaults are the {@code emulator sim} command's (uniform traffic
     * at load 0.5, 100 Gbps links with 100 ns delay, 2 lanes of 8 packets, 256-byte payloads,
     * 100 us with the first fifth as warm-up, seed 1, adaptive routing on, no flows, no series).
     */
    public static final class Builder {
        private final Fabric fabric;
        private final ForwardingTables tables;
        private TrafficPattern pattern = TrafficPattern.UNIFORM;
        private double load = 0.5;
        private double linkGbps = 100;
        private long latencyNs = 100;
        private int vls = 2;
        private int bufferPackets = 8;
        private int payloadBytes = 256;
        private long durationNs = 100_000;
        private long warmupNs = -1;
        private long seed = 1;
        private boolean adaptive = true;
        private List<Flow> flows = List.of();
        private int outputBufferPackets;
        private long seriesNs;
        private int sourceQueuePackets = SourceQueue.PACKETS;
        private RoutingMode routingMode = RoutingMode.DEFAULT;
        private CrossbarArbitration arbitration = CrossbarArbitration.ROUND_ROBIN;
        private CongestionControl.Settings cc;
        private List<Job> jobs = List.of();
        private Steady steady;
        private Precise precise;

        private Builder(Fabric fabric, ForwardingTables tables) {
            this.fabric = fabric;
            this.tables = tables;
        }

        public Builder pattern(TrafficPattern v) {
            pattern = v;
            return this;
        }

        /** Offered load per host, a fraction of the link rate (0..1]. */
        public Builder load(double v) {
            load = v;
            return this;
        }

        public Builder linkGbps(double v) {
            linkGbps = v;
            return this;
        }

        /** Propagation delay of every link. */
        public Builder latencyNs(long v) {
            latencyNs = v;
            return this;
        }

        public Builder vls(int v) {
            vls = v;
            return this;
        }

        /** Input buffer per port and lane, in packets. */
        public Builder bufferPackets(int v) {
            bufferPackets = v;
            return this;
        }

        public Builder payloadBytes(int v) {
            payloadBytes = v;
            return this;
        }

        public Builder durationNs(long v) {
            durationNs = v;
            return this;
        }

        /** Virtual time before measuring; unset: a fifth of the duration. */
        public Builder warmupNs(long v) {
            warmupNs = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        /** Switches choose among AR groups' ports; false: static routing (DR). */
        public Builder adaptive(boolean v) {
            adaptive = v;
            return this;
        }

        /** The traffic as these flows instead of every host by the pattern. */
        public Builder flows(List<Flow> v) {
            flows = v;
            return this;
        }

        /** Output buffer per switch port and lane, in packets (0: input-queued). */
        public Builder outputBufferPackets(int v) {
            outputBufferPackets = v;
            return this;
        }

        /** Each host's source queue, in packets. */
        public Builder sourceQueuePackets(int v) {
            sourceQueuePackets = v;
            return this;
        }

        /** The routing mode every host's packets ask for. */
        public Builder routingMode(RoutingMode v) {
            routingMode = v;
            return this;
        }

        /** How the switches' outputs choose among the input buffers waiting for them. */
        public Builder arbitration(CrossbarArbitration v) {
            arbitration = v;
            return this;
        }

        /** The hosts' congestion control (null: none). */
        public Builder cc(CongestionControl.Settings v) {
            cc = v;
            return this;
        }

        /** The traffic as these jobs instead of every host by the pattern (empty: none). */
        public Builder jobs(List<Job> v) {
            jobs = v;
            return this;
        }

        /** End the warm-up when the run is steady, the warm-up being the cap (null: the fixed warm-up). */
        public Builder steady(Steady v) {
            steady = v;
            return this;
        }

        /** End the measured window once its estimates are precise, the window being the cap (null: the whole window). */
        public Builder precise(Precise v) {
            precise = v;
            return this;
        }

        /** The report's series over time in bins of {@code v} ns (0: none). */
        public Builder seriesNs(long v) {
            seriesNs = v;
            return this;
        }

        /** @throws IllegalArgumentException naming the value out of range, as {@link Config}'s constructor does */
        public Config build() {
            return new Config(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs,
                    warmupNs < 0 ? durationNs / 5 : warmupNs, seed, adaptive, flows, outputBufferPackets, seriesNs, sourceQueuePackets,
                    routingMode, cc, jobs, arbitration, steady, precise);
        }
    }

    /** A flow's own source queue, in packets: its host's {@code sourceQueuePackets} split evenly over its {@code flows}, at least one. */
    public static int flowQueuePackets(int sourceQueuePackets, int flows) {
        return Math.max(1, sourceQueuePackets / flows);
    }

    /** Hosts a simulation may have: its reordering state is 4 bytes per pair (4 GiB at this size). */
    public static final int MAX_HOSTS = 32_768;

    /** Bins a series over time may have (24 bytes each, made before the run). */
    public static final int MAX_SERIES_BINS = 1_000_000;

    /**
     * A flow of packets from endpoint {@code src} to {@code dst} while {@code startNs <= t < stopNs},
     * or of {@code packets} packets from {@code startNs} if that is above 0 (a sized flow, whose
     * completion the report gives: {@link Report#flowCompletionNs}). With {@code messagePackets}
     * 0 (a stream) its packets are created evenly paced at the configuration's load; above 0 (a
     * bursty flow) in messages of that many packets, each created whole (queued whole or refused
     * whole, and sent as a burst as fast as the NIC gives the flow its turn), the first at
     * {@code startNs}, then after gaps drawn from an exponential distribution whose mean is the
     * message's frames' time at the load ({@code messageGapNs} 0: Poisson messages, the flows' bursts
     * at random), or every {@code messageGapNs} (the flows that start together then send their
     * messages together: synchronised bursts). Its messages' completion times are in the report
     * ({@link Report#messages}).
     */
    public record Flow(int src, int dst, long startNs, long stopNs, int packets, int messagePackets, long messageGapNs) {
        /** A flow without a size: packets until {@code stopNs}. */
        public Flow(int src, int dst, long startNs, long stopNs) {
            this(src, dst, startNs, stopNs, 0);
        }

        /** A stream: packets evenly paced at the load. */
        public Flow(int src, int dst, long startNs, long stopNs, int packets) {
            this(src, dst, startNs, stopNs, packets, 0, 0);
        }

        /** This flow in messages of {@code packets} packets, Poisson ({@code gapNs} 0) or every {@code gapNs}. */
        public Flow inMessages(int packets, long gapNs) {
            return new Flow(src, dst, startNs, stopNs, this.packets, packets, gapNs);
        }

        /** True if it sends in messages. */
        public boolean bursty() {
            return messagePackets > 0;
        }

        /** The RL-CC paper's many-to-one: hosts 1..n to host 0 for the whole run. */
        public static List<Flow> manyToOne(int n, long durationNs) {
            List<Flow> out = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                out.add(new Flow(i, 0, 0, durationNs));
            }
            return out;
        }

        /** Its all-to-all: every host of 0..n-1 to every other for the whole run, by source then destination. */
        public static List<Flow> allToAll(int n, long durationNs) {
            List<Flow> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    if (i != j) {
                        out.add(new Flow(i, j, 0, durationNs));
                    }
                }
            }
            return out;
        }

        /**
         * Its long-short: a long flow from host 1 to host 0 for the whole run, then {@code shorts}
         * flows of {@code packets} from hosts 2.. to host 0, all starting at {@code startNs}.
         */
        public static List<Flow> longShort(int shorts, int packets, long startNs, long durationNs) {
            List<Flow> out = new ArrayList<>();
            out.add(new Flow(1, 0, 0, durationNs));
            for (int i = 0; i < shorts; i++) {
                out.add(new Flow(2 + i, 0, startNs, durationNs, packets));
            }
            return out;
        }
    }

    /**
     * A job: its ranks on {@code hosts} (rank r on fabric host {@code hosts[r]}), sending by {@code
     * pattern} among them (a {@link TrafficPlan#ofJob job plan}) at {@code load} of each host's link
     * rate, in messages of {@code messagePackets} packets created together and sent as a burst to
     * one rank (message arrivals Poisson at the load's rate over the message's bytes), each packet
     * asking for {@code mode}; with {@code appAware}, each host chooses each message's mode from
     * its NIC counters instead ({@link AppAwareRouting}: ADAPTIVE_3 or the pattern's default,
     * {@link AppAwareRouting#forPattern}: ADAPTIVE_1 for all-to-all, the open-loop pattern or the
     * closed-loop {@code loop}, ADAPTIVE_0 for the others).
     * With a {@code loop} ({@link ClosedLoop}), the job is closed-loop instead: no Poisson arrivals, no
     * load ({@code load} is not used, and not checked: NaN from the command lines), its ranks send a
     * message when they have received one (the pattern is not used).
     */
    public record Job(String name, int[] hosts, TrafficPattern pattern, double load, RoutingMode mode, int messagePackets,
                      boolean appAware, ClosedLoop.Kind loop) {
        /** A job whose packets all ask for {@code mode}. */
        public Job(String name, int[] hosts, TrafficPattern pattern, double load, RoutingMode mode, int messagePackets) {
            this(name, hosts, pattern, load, mode, messagePackets, false, null);
        }

        /** An open-loop job (Poisson message arrivals at {@code load}). */
        public Job(String name, int[] hosts, TrafficPattern pattern, double load, RoutingMode mode, int messagePackets,
                   boolean appAware) {
            this(name, hosts, pattern, load, mode, messagePackets, appAware, null);
        }

        public Job {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(pattern, "pattern");
            Objects.requireNonNull(mode, "mode");
            hosts = hosts.clone();
        }

        @Override
        public int[] hosts() {
            return hosts.clone();
        }

        /** Ranks: the job's hosts. */
        public int size() {
            return hosts.length;
        }

        /** Refuses jobs with flows, jobs sharing a host or a name, a host outside the fabric, a bad load (open loop) or message. */
        static void checkAll(List<Job> jobs, List<Flow> flows, int fabricHosts) {
            if (!jobs.isEmpty() && !flows.isEmpty()) {
                throw new IllegalArgumentException("the traffic is jobs or flows, not both");
            }
            int[] owner = new int[fabricHosts];
            Arrays.fill(owner, -1);
            Set<String> names = new HashSet<>();
            for (int j = 0; j < jobs.size(); j++) {
                Job job = jobs.get(j);
                if (!names.add(job.name())) {
                    throw new IllegalArgumentException("two jobs are named " + job.name());
                }
                if (job.loop() == null && !(job.load() > 0 && job.load() <= 1)) {
                    throw new IllegalArgumentException("job " + job.name() + ": load " + job.load() + " is not in (0, 1]");
                }
                if (job.messagePackets() < 1) {
                    throw new IllegalArgumentException("job " + job.name() + ": a message has at least one packet");
                }
                if (job.size() < 2) {
                    throw new IllegalArgumentException("job " + job.name() + " needs at least two hosts, not " + job.size());
                }
                if (job.loop() == ClosedLoop.Kind.PING_PONG && job.size() != 2) {
                    throw new IllegalArgumentException("job " + job.name() + ": ping-pong runs between two hosts, not " + job.size());
                }
                for (int e : job.hosts) {
                    if (e < 0 || e >= fabricHosts) {
                        throw new IllegalArgumentException("job " + job.name() + ": host " + e + " is not one of the fabric's " + fabricHosts);
                    }
                    if (owner[e] >= 0) {
                        throw new IllegalArgumentException("job " + job.name() + " and job " + jobs.get(owner[e]).name() + " share host " + e);
                    }
                    owner[e] = j;
                }
            }
        }
    }

    /**
     * What one job measured, as the run's {@link Report} does for all hosts but over the job's own:
     * loads and throughput as fractions of its hosts' link rate over the measured window, latency
     * of its packets created in the window, {@code nonMinimalShare} the share of those packets
     * that took a non-minimal path: more switch-to-switch hops than the minimal path between their
     * switches (on a Dragonfly the shortest within their two groups), or, under Dragonfly routing,
     * sent through an intermediate group (NaN when the fabric has more switches than
     * {@code Measurements.MAX_DISTANCE_SWITCHES}), and, for its messages created in the
     * window and completed by the end, the time from creation to the last packet's delivery;
     * {@code adaptiveShare}, for an application-aware job, the share of its message bytes its hosts
     * sent with the default mode (ADAPTIVE_1 for all-to-all, else ADAPTIVE_0) over the whole run (the paper's "traffic sent by Default routing"), NaN
     * for the others; {@code messagesLost}: messages whose completion was lost track of (a host had
     * more than {@code Measurements.MESSAGE_SLOTS} in delivery at once; 0 unless the fabric is
     * deadlocked or absurdly congested), left out of the message times. The application-aware
     * routing paper's performance model (De Sensi et al., SC'19, Equation 2, for our NICs: no
     * outstanding-packet window, a one-way latency): {@code networkLatencyMeanNs}, the job's
     * packets' mean time from their sender's NIC to delivery (its L); {@code stallNsPerFlit}, its
     * hosts' credit waits over their request flits, whole run (its s, at a 1 GHz clock);
     * {@code modelMessageNs = L + p t + f s}, a message of p packets of frame time t and f flits
     * (the paper's {@code f (s + 1)} with a flit's cycle replaced by the link's frame time).
     * A closed-loop job ({@link ClosedLoop}): {@code iterations}, its iterations started in the window
     * and completed by the end, and their times' mean and 99th percentile (0 for an open-loop job).
     */
    public record JobReport(String name, int hosts, double offeredLoad, double throughput, double latencyMeanNs, long latencyP99Ns,
                            long packetsDelivered, long bytesDelivered, double nonMinimalShare, long messagesCompleted,
                            double messageMeanNs, long messageP99Ns, double adaptiveShare, long messagesLost,
                            double networkLatencyMeanNs, double stallNsPerFlit, double modelMessageNs, long iterations,
                            double iterationMeanNs, long iterationP99Ns) {
    }

    /**
     * Per-flow throughput between two instants at which the set of flows changed: each flow's
     * bytes delivered over the phase's last four fifths (the first fifth lets queues settle), in
     * Gbps; and over the same window, each congested switch output with the share each of its
     * inputs got.
     */
    public record Phase(long startNs, long endNs, double[] flowGbps, List<PortShares.Output> congestedPorts) {
    }

    /**
     * What a run measured ({@code flowSeriesGbps}: with flows, each flow's throughput in
     * consecutive bins of {@code binNs}, a hundred over the run). Loads and throughput are fractions of the hosts' link rate over the
     * measured window; latencies are from a packet's creation (source queueing included) to its
     * delivery, for packets created in the window; {@code meanHops} counts links between switches.
     * {@code series}: with {@link Config#seriesNs}, the run over time (empty without).
     * {@code networkLatencyMeanNs}: the same packets' mean time from their sender's NIC to delivery
     * (the source queue left out: the in-network latency congestion control works on).
     * {@code flowCompletionNs}: with flows, per flow, the time from its start to the delivery of
     * its last packet for a sized flow that completed in the run, else -1.
     * {@code jobs}: with {@link Config#jobs}, each job's own (empty without).
     * {@code controlPackets}: the congestion-control packets (ACKs, CNPs) the hosts' NICs sent over
     * the whole run, of {@code hostPackets}, every packet they sent (data too).
     * {@code messages}: with bursty flows ({@link Flow#messagePackets}), their messages; null without.
     * {@code warmupNs}: where the measured window started, the configured warm-up or, with {@link
     * Config#steady}, when the run was found steady ({@code steadyAtNs}, -1 when it was not by the
     * warm-up's cap, or not watched); {@code simulatedNs} is then the measured window's end.
     * {@code precision}: with {@link Config#precise}, the confidence intervals and whether the run
     * stopped on them (the window then ended at {@code simulatedNs}); null without.
     */
    public record Report(double offeredLoad, double throughput, double latencyMeanNs, long latencyP95Ns, long latencyP99Ns,
                         double meanHops, long packetsDelivered, long packetsDropped, long packetsRefused, long outOfOrder,
                         long packetHops, long events, long simulatedNs, long wallMillis, double eventsPerSecond,
                         double packetHopsPerSecond, long cpuMillis, double packetHopsPerCpuSecond, List<Phase> phases, long binNs,
                         double[][] flowSeriesGbps, List<SeriesBin> series, double networkLatencyMeanNs, long[] flowCompletionNs,
                         List<JobReport> jobs, long controlPackets, long hostPackets, Messages messages, long warmupNs,
                         long steadyAtNs, Precision precision) {
        /** Whether steady-state detection found the run steady by its warm-up's cap. */
        public boolean steady() {
            return steadyAtNs >= 0;
        }
    }

    /**
     * The measured window's 95% confidence intervals by non-overlapping batch means ({@link
     * Precise}): {@code precise}, the run ended because both were within the precision asked for
     * (false: the window ran to its cap); the half-widths of the mean packet latency's ({@code
     * latencyHalfWidthNs}, NaN when no packet was measured or there are fewer than two batches) and
     * of the throughput's ({@code throughputHalfWidth}, a fraction of the hosts' link rate as the
     * throughput), over {@code batches} batches of {@code batchNs} (at the stop; at the cap, the
     * window's whole batches at the width the autocorrelation test had reached).
     */
    public record Precision(boolean precise, double latencyHalfWidthNs, double throughputHalfWidth, int batches, long batchNs) {
    }

    /**
     * What bursty flows measured: their messages created in the measured window and completed by
     * the end of the run, {@code completed} of them, their times from creation (all of a message's
     * packets are created together) to the delivery of the last packet, mean and p99; per flow the
     * mean ({@code flowMeanNs}, NaN for a flow that completed none, a stream's included) and its
     * measured packets' mean time from the sender's NIC to delivery ({@code flowNetworkLatencyNs},
     * NaN: none); and over the whole run the packets the switches marked ECN and the CNPs the hosts
     * received (DCQCN's; 0 for the others).
     */
    public record Messages(long completed, double meanNs, long p99Ns, double[] flowMeanNs, double[] flowNetworkLatencyNs, long ecnMarked,
                           long cnpsReceived) {
    }

    /**
     * One bin of a run's series over time (the paper's latency-over-time figures): the packets
     * <em>delivered</em> in {@code [startNs, startNs + width)}, whenever they were created (the
     * warm-up included, so the series shows a network filling from empty), their mean latency
     * (creation to delivery; NaN when none arrived in the bin) and the bytes delivered as a fraction
     * of the hosts' link rate over the bin ({@code throughput}, as the report's). The last bin ends
     * at the run's end and may be narrower.
     */
    public record SeriesBin(long startNs, long widthNs, long packetsDelivered, double latencyMeanNs, double throughput) {
    }

    /**
     * How a run takes its events: {@link #GLOBAL}, every event in time order (the default, every
     * documented result's); {@link #WINDOWED} (experimental, issue 16's speed prototype), each
     * switch with its hosts (a {@link LogicalProcesses logical process}) runs its events of a
     * lookahead window together (a fabric of one process runs by the global loop: {@link
     * Simulation#ONE_PROCESS}). Every node draws from its own random stream, so a run by either
     * is a correct run of the configuration, and each is deterministic for a seed; they order
     * same-time events at a node differently, so their reports differ within the run-to-run noise.
     */
    public enum Scheduler {
        GLOBAL, WINDOWED;

        /**
         * Refuses {@code config} if this scheduler cannot run its traffic: the windowed one runs
         * pattern traffic only (flows and jobs share state between hosts of different switches).
         *
         * @throws IllegalArgumentException naming what to run them with
         */
        public void check(Config config) {
            if (this == WINDOWED && (!config.flows().isEmpty() || !config.jobs().isEmpty())) {
                throw new IllegalArgumentException("the windowed scheduler (experimental) runs pattern traffic only: flows and jobs share "
                        + "state between hosts of different switches (flow phases, closed loops, NIC responses); run them with --scheduler "
                        + "global");
            }
        }
    }

    /**
     * What a run asked to be windowed says when its fabric is one logical process and the global
     * loop runs it instead: without a link of some delay between two processes there is no
     * lookahead, and the windows of one process would only add their cost, the more the larger the
     * fabric (the same events, at 1.2 to 1.6 times the CPU time on one 32-port switch and 19 times on
     * {@code fat-tree:k=10,levels=3 --link-latency 0}, whose every event within a window goes to
     * the one process's own list, sorted in as it comes).
     */
    public static final String ONE_PROCESS = "windowed scheduler: the fabric is one logical process (one switch, or no delay on the "
            + "links between its switches), so the global loop runs it: windows of one process would only add their cost";

    static final int ARRIVE = 0;
    static final int CREDIT = 1;
    static final int FREE = 2;
    static final int INJECT = 3;
    static final int INJECT_FLOW = 4;
    /** Take a snapshot of the switches' counters (at the edges of each phase's measured window). */
    static final int SNAPSHOT = 5;
    /** Q-adaptive feedback reaches the upstream router (its argument: a slot of {@link #feedback}). */
    static final int QFEEDBACK = 6;
    /** A credit and the feedback that rides with it (argument: the lane in bits 0-3, the blocks in 4-11, the feedback's slot above). */
    static final int CREDIT_FEEDBACK = 7;
    /** A host's congestion control asked to be woken: a paced flow may send. */
    static final int WAKE = 8;
    /** A steady-state test window ends ({@link Steady}). */
    static final int WINDOW_END = 9;
    /** A base batch of the precision stop ends ({@link Precise}). */
    static final int BATCH_END = 10;
    /** The event types' names, by type, for messages. */
    private static final List<String> EVENT_NAMES = List.of("ARRIVE", "CREDIT", "FREE", "INJECT", "INJECT_FLOW", "SNAPSHOT", "QFEEDBACK",
            "CREDIT_FEEDBACK", "WAKE", "WINDOW_END", "BATCH_END");

    /** Event {@code ev} in words, for a message: its type's name, node, port and argument. */
    static String describeEvent(long ev) {
        int kind = EventQueue.type(ev);
        return String.format("event %s (node %d, port %d, argument %d)", kind < EVENT_NAMES.size() ? EVENT_NAMES.get(kind) : "type " + kind,
                EventQueue.node(ev), EventQueue.port(ev), EventQueue.arg(ev));
    }

    private static final int SEND_QUEUE = 16;
    /** A credit event's argument: the lane in bits 0-3, the blocks returned in bits 4-11 (a slot is at most 65 blocks), a CREDIT_FEEDBACK's slot above. */
    private static final int CREDIT_BLOCKS_SHIFT = 4;
    private static final int CREDIT_SLOT_SHIFT = 12;

    /** Switch {@code node}'s ECN marking generator's seed in a run of {@code seed} (the live fabric's too). */
    public static long ecnSeed(long seed, int node) {
        return seed * 0x9E3779B97F4A7C15L + node;
    }

    private final Config c;
    private final Fabric f;
    private final PacketPool pool;
    /** The handles the pool could need (every buffer full of the smallest packets), and the heap it was sized against. */
    private final long poolBound;
    private final long heapBytes;
    private final EventQueue queue;
    private final SwitchCore[] switchCore;
    private final HostCore[] hostCore;
    private final PortCounterArray[] counters;
    private final double nsPerByte;
    /** The credit unit of the run: a slot is its data packet, in 64-byte blocks. */
    private final CreditBlocks blocks;
    /**
     * Per global port, an event for the node and port at its other end with type and argument
     * still 0 ({@link EventQueue#with} fills them), or -1 if nothing is cabled there: one load
     * per packet sent or credit returned instead of three lookups in the fabric.
     */
    private final long[] peerEvent;
    private final long latencyNs;
    /** Per global port, its link's propagation delay: the fabric's where it gives one, else the configured one. */
    private final long[] delayNs;
    /** Q-adaptive feedback on its way upstream: row and value per slot, slots reused through a free list. */
    private final FeedbackSlots feedback = new FeedbackSlots();
    /** The logical processes of the windowed loop; null: the global loop (asked for, or the fabric is one process). */
    private final LogicalProcesses processes;
    /** In the windowed loop, the process whose events run (-1: none), and the current window's end. */
    private int currentProcess = -1;
    private long windowEnd;
    /** In the windowed loop, whether the event scheduled last went to the running process's list, not the queue (where to amend a credit). */
    private boolean lastScheduledLocal;
    /** The credit event scheduled last (-1 once something else was), its link and time: feedback rides with it. */
    private long lastCredit = -1;
    private int lastCreditPort;
    private long lastCreditAt;
    private final Measurements measure;
    private final TrafficSources sources;
    /** Per flow, the packets its source has created so far (a sized flow stops at its size). */
    private final int[] flowCreated;
    /** Per LID, its endpoint (-1: none). */
    private final int[] endpointOfLid;
    /**
     * A response's time back through the empty fabric (the NICs' round trips, {@link
     * HostCore.Output#respond}); null where no host reads them: the simulator's one reader of the
     * NIC's latency counter is an application-aware job's chooser (its report carries no NIC
     * counter), and answering every packet costs speed on a 1,000-host fabric (docs/benchmarks.md,
     * "What the NICs' round trips cost the simulator"), so a run without such a job answers none.
     */
    private final NoLoadLatency responseTimes;
    /** The responses on their way back, counted at their senders when due (null with {@link #responseTimes}). */
    private final ResponsesInFlight responses;

    private Simulation(Config c, Scheduler scheduler, long heapBytes, boolean windowOneProcess) throws TableWriteException {
        this.c = c;
        this.heapBytes = heapBytes;
        f = c.fabric();
        nsPerByte = 8.0 / c.linkGbps();
        int frameBytes = FrameSizes.DATA_HEADER + c.payloadBytes();
        double meanGapNs = frameBytes * nsPerByte / c.load();
        int endpoints = f.endpointCount();
        // every packet holds a send-queue slot or a credit of the buffer it is headed for, or is
        // the one a host's source holds for its lane's full send queue
        long hostSlots = (long) endpoints * (c.vls() * SEND_QUEUE + 1 + (c.cc() == null ? 0 : HostCore.CONTROL_QUEUE)) + 1;
        // credits in 64-byte blocks: a slot is the run's data packet, and with congestion control an ACK
        // or CNP (a header) takes a block of it; the pool as before, growing if small packets fill the buffers
        blocks = CreditBlocks.of(frameBytes, c.cc() == null ? frameBytes : FrameSizes.DATA_HEADER);
        long linkedPorts = 0;
        long switchPorts = 0;
        for (int g = 0; g < f.globalPortCount(); g++) {
            linkedPorts += f.peerNode(g) == Fabric.NONE ? 0 : 1;
            // and a switch's output buffers
            switchPorts += f.isSwitch(f.nodeOfGlobalPort(g)) ? 1 : 0;
        }
        long slots = hostSlots + linkedPorts * c.vls() * c.bufferPackets() + switchPorts * c.vls() * c.outputBufferPackets();
        long most = hostSlots + linkedPorts * c.vls() * blocks.mostPackets(c.bufferPackets())
                + switchPorts * c.vls() * blocks.mostPackets(c.outputBufferPackets());
        if (slots > PacketPool.MAX_CAPACITY || slots * PacketPool.MIN_BYTES_PER_PACKET > heapBytes) {
            // refused before a NegativeArraySizeException, or an OutOfMemoryError after filling the heap
            String output = c.outputBufferPackets() == 0 ? ""
                    : String.format(", %,d switch ports x %d x %d of output buffer", switchPorts, c.vls(), c.outputBufferPackets());
            throw new IllegalArgumentException(String.format("the fabric's buffers hold %,d packets (%,d linked ports x %d lanes x %d "
                    + "packets of input buffer%s, %,d in the %,d hosts' send queues), more than the simulator can hold: %s; lower "
                    + "--buffer, --output-buffer or --vls, or simulate a smaller fabric",
                    slots, linkedPorts, c.vls(), c.bufferPackets(), output, hostSlots, endpoints,
                    slots > PacketPool.MAX_CAPACITY ? String.format("one packet pool holds at most %,d", PacketPool.MAX_CAPACITY)
                            : String.format("their pool alone needs %.1f GiB, and this run's heap is %.1f GiB (%s)",
                                    slots * (double) PacketPool.MIN_BYTES_PER_PACKET / (1L << 30), heapBytes / (double) (1L << 30),
                                    HEAP_ADVICE)));
        }
        poolBound = most;
        long rings = linkedPorts * c.vls() * blocks.mostPackets(c.bufferPackets()) * INPUT_RING_SLOT_BYTES
                + switchPorts * c.vls() * blocks.mostPackets(c.outputBufferPackets()) * (long) Integer.BYTES;
        pool = new PacketPool((int) slots, poolLimit(slots, most, rings, heapBytes));
        queue = new EventQueue(endpoints);
        switchCore = new SwitchCore[f.nodeCount()];
        hostCore = new HostCore[endpoints];
        counters = new PortCounterArray[f.nodeCount()];
        int[] lidOfEndpoint = new int[endpoints];
        endpointOfLid = new int[c.tables().lids().maxLid() + 1];
        Arrays.fill(endpointOfLid, -1);
        for (int e = 0; e < endpoints; e++) {
            int lid = c.tables().lids().endpointLid(e);
            lidOfEndpoint[e] = lid;
            endpointOfLid[lid] = e;
        }
        measure = new Measurements(c, frameBytes, endpointOfLid);
        for (int n = 0; n < f.nodeCount(); n++) {
            counters[n] = new PortCounterArray(f.portCount(n), !c.flows().isEmpty()); // port shares are reported for flows only
            if (f.isSwitch(n)) {
                TableStore tables = new TableStore(f.portCount(n));
                tables.apply(TableInstall.batch(c.tables(), f.switchIndex(n), c.vls(), c.adaptive()));
                int node = n;
                switchCore[n] = new SwitchCore(f.portCount(n), c.vls(), c.bufferPackets(), c.outputBufferPackets(), blocks, tables, counters[n], pool,
                        new SwitchCore.Output() {
                            @Override
                            public void transmit(int port, int vl, int h, long t) {
                                measure.packetHops++;
                                send(node, port, h, t);
                            }

                            @Override
                            public void returnCredit(int port, int vl, int blocks, long t) {
                                credit(node, port, vl, blocks, t);
                            }

                            @Override
                            public void discarded(int h, int inPort, long t) {
                                pool.release(h);
                            }

                            @Override
                            public void qFeedback(int port, int row, float value, long t) {
                                int g = f.globalPort(node, port);
                                long peer = peerEvent[g];
                                if (peer < 0) {
                                    return;
                                }
                                // sent right after the packet's credit on the same link: one event carries both, in the
                                // queue or, in the windowed loop over a link without delay, in the process's own list
                                int slot = feedback.put(row, value);
                                if (lastCredit != -1 && lastCreditPort == g && lastCreditAt == t && slot < 1 << (31 - CREDIT_SLOT_SHIFT)) {
                                    long both = EventQueue.with(peer, CREDIT_FEEDBACK, EventQueue.arg(lastCredit) | slot << CREDIT_SLOT_SHIFT);
                                    if (lastScheduledLocal ? processes.amendLast(lastCredit, both) : queue.amendLast(lastCredit, both)) {
                                        lastCredit = -1;
                                        return;
                                    }
                                }
                                schedule(t + delayNs[g], EventQueue.with(peer, QFEEDBACK, slot));
                            }
                        });
                if (c.cc() != null && c.cc().marking() != null) {
                    switchCore[n].ecn(c.cc().marking(), ecnSeed(c.seed(), n));
                }
                switchCore[n].arbitration(c.arbitration());
            }
        }
        latencyNs = c.latencyNs();
        delayNs = new long[f.globalPortCount()];
        for (int g = 0; g < delayNs.length; g++) {
            delayNs[g] = f.linkDelayNs(g) >= 0 ? f.linkDelayNs(g) : latencyNs;
        }
        LogicalProcesses lp = scheduler == Scheduler.WINDOWED ? LogicalProcesses.of(f, delayNs) : null;
        // one process has no lookahead: its windows would only add their cost, so the global loop runs it
        processes = lp != null && (lp.count() > 1 || windowOneProcess) ? lp : null;
        peerEvent = new long[f.globalPortCount()];
        for (int g = 0; g < peerEvent.length; g++) {
            peerEvent[g] = f.peerNode(g) == Fabric.NONE ? -1 : EventQueue.event(0, f.peerNode(g), f.peerPort(g), 0);
        }
        responseTimes = c.jobs().stream().anyMatch(Job::appAware) ? new NoLoadLatency(f, latencyNs, c.linkGbps(), FrameSizes.DATA_HEADER)
                : null;
        if (responseTimes != null) {
            PortCounterArray[] nic = new PortCounterArray[endpoints];
            for (int e = 0; e < endpoints; e++) {
                nic[e] = counters[f.endpointNode(e)];
            }
            responses = new ResponsesInFlight(nic);
        } else {
            responses = null;
        }
        for (int e = 0; e < endpoints; e++) {
            int endpoint = e;
            int node = f.endpointNode(e);
            int port = f.endpointPort(e) - f.portBase(node) + 1;
            hostCore[e] = new HostCore(c.vls(), SEND_QUEUE, blocks, counters[node], pool, new HostCore.Output() {
                @Override
                public void controlMade(int h, long t) {
                    sources.path(endpoint, h);
                }

                @Override
                public void controlConsumed(int h, long t) {
                    pool.release(h);
                }

                @Override
                public void wakeAt(long at) {
                    schedule(at, EventQueue.event(WAKE, node, port, 0));
                }

                @Override
                public void transmit(int vl, int h, long t) {
                    sources.sent(endpoint, h);
                    send(node, port, h, t);
                }

                @Override
                public void returnCredit(int vl, int blocks, long t) {
                    credit(node, port, vl, blocks, t);
                }

                @Override
                public void delivered(int h, long t) {
                    measure.delivered(endpoint, pool, h, t);
                    sources.delivered(endpoint, h, t);
                    pool.release(h);
                }

                @Override
                public void respond(int h, long t) {
                    if (responseTimes != null) {
                        respondTo(endpoint, h, t);
                    }
                }

                @Override
                public void controlRefused(int kind, long t) {
                    if (outgrewHeap()) { // stops here, as a source finding no handle for a data packet does
                        throw new IllegalStateException(String.format("packet pool exhausted: host %d's %s was not made",
                                endpoint, kind == PacketPool.CNP ? "CNP" : "ACK"));
                    }
                }
            }, c.cc() == null ? null : c.cc().create(c.linkGbps()));
        }
        sources = new TrafficSources(c, pool, hostCore, lidOfEndpoint, frameBytes, meanGapNs, measure, counters, SEND_QUEUE, responses);
        flowCreated = new int[c.flows().size()];
    }

    /** Runs {@code config} to its end and reports. */
    public static Report run(Config config) {
        return runLearning(config).report();
    }

    /**
     * Runs {@code config} to its end and reports, one of {@code concurrent} simulations sharing
     * this JVM's heap at once (train-cc's episodes on its threads): its pool is sized against its share.
     */
    public static Report run(Config config, int concurrent) {
        return runLearning(config, Scheduler.GLOBAL, concurrent, note -> { }).report();
    }

    /**
     * Heap a handle of a grown pool takes: {@link PacketPool#MIN_BYTES_PER_PACKET}, and half that
     * again while the pool doubles (its old arrays live until the copy is made).
     */
    static final long GROWN_HANDLE_BYTES = PacketPool.MIN_BYTES_PER_PACKET * 3L / 2;
    /** Heap an input ring's slot takes (its handle and arrival time); an output ring's is its handle. */
    static final long INPUT_RING_SLOT_BYTES = Integer.BYTES + Long.BYTES;
    /** The share of a run's heap its pool and rings may grow into; the rest holds its events, tables, cores and measurements. */
    static final double GROWTH_SHARE = 0.75;
    private static final String HEAP_ADVICE = "a larger heap: JAVA_OPTS=-Xmx..., and for a sweep fewer --threads";

    /**
     * The handles a run's pool may grow to: the most its buffers' blocks can hold ({@code most}:
     * every buffer full of the smallest packet, 65 of a 4,133-byte slot with congestion control's
     * 37-byte ACKs and CNPs) where that fits {@link #GROWTH_SHARE} of {@code heapBytes} after the
     * rings grown to that bound ({@code ringBytes}); else what fits, and never fewer than its {@code
     * slots}. A run whose pool reaches a limit below {@code most} stops with the sizes and what to
     * lower ({@link #heapTooSmall}) rather than dropping packets (its report would then depend on
     * the machine's heap) or dying of an OutOfMemoryError half way.
     */
    static int poolLimit(long slots, long most, long ringBytes, long heapBytes) {
        long fits = Math.max(0, (long) (heapBytes * GROWTH_SHARE) - ringBytes) / GROWN_HANDLE_BYTES;
        return (int) Math.min(PacketPool.MAX_CAPACITY, Math.min(most, Math.max(slots, fits)));
    }

    /**
     * Why a run stops when its pool needed more handles than its heap allows ({@link #poolLimit}),
     * caused by {@code refused}: which packet found no handle.
     */
    private IllegalArgumentException heapTooSmall(IllegalStateException refused) {
        return new IllegalArgumentException(String.format("the simulation stopped at %,d ns: small packets (ACKs, CNPs) filled the "
                + "buffers past the %,d packets (%s) this run's heap of %s allows its packet pool, of the %,d (%s) the buffers' "
                + "blocks can hold; %s, or lower --buffer, --output-buffer or --vls", stoppedAt(), pool.limit(),
                size(pool.limit() * GROWN_HANDLE_BYTES), size(heapBytes), poolBound, size(poolBound * GROWN_HANDLE_BYTES), HEAP_ADVICE), refused);
    }

    /** The simulated time of the event running or run last (in the windowed loop, the running process's, not the window's last taken from the queue). */
    private long stoppedAt() {
        return currentProcess >= 0 ? processes.takenTime() : queue.poppedTime();
    }

    /** {@code bytes} in GiB, or MiB below one. */
    private static String size(long bytes) {
        return bytes >= 1L << 30 ? String.format("%.1f GiB", bytes / (double) (1L << 30)) : String.format("%.1f MiB", bytes / (double) (1L << 20));
    }

    /**
     * {@link #simulate}, unless the pool ran out of handles at its heap's limit ({@link
     * #poolLimit}): then the run stops with {@link #heapTooSmall} at the event whose allocation
     * failed, whether a source found no handle for a data packet or a NIC none for a control packet
     * (which it would otherwise drop: a report that depends on the heap is not given), on either loop.
     */
    private Report simulateWithinHeap() {
        Report r;
        try {
            r = simulate();
        } catch (IllegalStateException e) {
            throw outgrewHeap() ? heapTooSmall(e) : e;
        }
        assert !outgrewHeap() : "a refused allocation that did not stop the run";
        return r;
    }

    /** Whether the pool found no handle at a limit its heap set below what the buffers can hold. */
    private boolean outgrewHeap() {
        return pool.refusals() > 0 && pool.limit() < poolBound;
    }

    /**
     * A run's report and what its switches learnt: per switch number, the Q-table as it stands at
     * the end of the run (rows x columns, ns, as {@code GetDragonflyRouting} reads a live switch's),
     * or null for a switch that learns none; the adaptive decisions every switch took over the
     * whole run (warm-up included), minimal and not (a Dragonfly's UGAL, PAR, Q-adaptive and Valiant
     * choices; an AR group's port choices); and the load of every link between two switches, each
     * direction, over the whole run ({@link LinkLoad}).
     */
    public record Learnt(Report report, List<float[]> qTables, long minimalDecisions, long nonminimalDecisions, List<LinkLoad> linkLoads) {
        /** The non-minimal decisions' share of all, or NaN when no switch decided anything. */
        public double nonminimalShare() {
            long all = minimalDecisions + nonminimalDecisions;
            return all == 0 ? Double.NaN : (double) nonminimalDecisions / all;
        }
    }

    /**
     * One direction of a link between two switches: switch {@code from}'s port {@code port} to
     * switch {@code to}, and the data it sent over the whole run (warm-up included) as a fraction
     * of the link rate.
     */
    public record LinkLoad(String from, int port, String to, double load) {
    }

    /** Runs {@code config} to its end; reports, and reads every switch's Q-table at the end. */
    public static Learnt runLearning(Config config) {
        return runLearning(config, Scheduler.GLOBAL, 1, note -> { });
    }

    /**
     * Runs {@code config} to its end by {@code scheduler}, one of {@code concurrent} simulations
     * sharing this JVM's heap at once (a sweep's threads: its pool is sized against its share,
     * {@link #poolLimit}); reports, and reads every switch's Q-table at the end. {@code notes} gets
     * what the scheduler has to say of the run (the windowed loop's windows: {@link
     * LogicalProcesses.Stats}; or, the windowed loop asked for a fabric of one logical process,
     * {@link #ONE_PROCESS}: the global loop ran it), nothing for the global loop.
     *
     * @throws IllegalArgumentException as {@link #run}, when {@code concurrent} is below 1, or when
     *                                  {@code scheduler} cannot run the configuration's traffic
     */
    public static Learnt runLearning(Config config, Scheduler scheduler, int concurrent, Consumer<String> notes) {
        if (concurrent < 1) {
            throw new IllegalArgumentException("simulations sharing the heap: at least 1, not " + concurrent);
        }
        return runLearningWithin(config, scheduler, Runtime.getRuntime().maxMemory() / concurrent, notes);
    }

    /** {@link #runLearning(Config, Scheduler, int, Consumer)} with a pool sized against a heap of {@code heapBytes} ({@link #poolLimit}). */
    static Learnt runLearningWithin(Config config, Scheduler scheduler, long heapBytes, Consumer<String> notes) {
        return runLearningWithin(config, scheduler, heapBytes, false, notes);
    }

    /**
     * {@link #runLearningWithin(Config, Scheduler, long, Consumer)}, with {@code windowOneProcess}
     * the windowed loop even on a fabric of one logical process (for the tests that hold it to the
     * global loop's events there); false: such a fabric runs by the global loop ({@link #ONE_PROCESS}).
     */
    static Learnt runLearningWithin(Config config, Scheduler scheduler, long heapBytes, boolean windowOneProcess, Consumer<String> notes) {
        Simulation sim = create(config, scheduler, heapBytes, windowOneProcess);
        Report r = sim.simulateWithinHeap();
        if (sim.processes != null) {
            notes.accept(sim.processes.stats().describe());
        } else if (scheduler == Scheduler.WINDOWED) {
            notes.accept(ONE_PROCESS);
        }
        List<float[]> q = new ArrayList<>();
        long minimal = 0;
        long nonminimal = 0;
        for (int s = 0; s < sim.f.switchCount(); s++) {
            int n = sim.f.switchNode(s);
            q.add(sim.switchCore[n].learning().qTable());
            minimal += sim.counters[n].getNode(PortCounterArray.ADAPTIVE_MINIMAL);
            nonminimal += sim.counters[n].getNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
        }
        List<LinkLoad> loads = new ArrayList<>();
        double bytesAtRate = r.simulatedNs() * config.linkGbps() / 8;
        for (int s = 0; s < sim.f.switchCount(); s++) {
            int n = sim.f.switchNode(s);
            for (int p = 1; p <= sim.f.portCount(n); p++) {
                int peer = sim.f.peerNode(sim.f.globalPort(n, p));
                if (peer != Fabric.NONE && sim.f.isSwitch(peer)) {
                    loads.add(new LinkLoad(sim.f.name(n), p, sim.f.name(peer), sim.counters[n].get(p, PortCounterArray.XMIT_DATA) / bytesAtRate));
                }
            }
        }
        return new Learnt(r, Collections.unmodifiableList(q), minimal, nonminimal, List.copyOf(loads));
    }

    private static Simulation create(Config config, Scheduler scheduler, long heapBytes, boolean windowOneProcess) {
        scheduler.check(config);
        try {
            return new Simulation(config, scheduler, heapBytes, windowOneProcess);
        } catch (TableWriteException e) {
            throw new IllegalArgumentException("the routing tables do not fit the fabric: " + e.getMessage(), e);
        }
    }

    /** Runs {@code config} to its end and hands back the simulation as the run left it, for tests to read its hosts' state. */
    static Simulation ranToEnd(Config config) {
        Simulation sim = create(config, Scheduler.GLOBAL, Runtime.getRuntime().maxMemory(), false);
        sim.simulateWithinHeap();
        return sim;
    }

    /** Endpoint {@code e}'s NIC. */
    HostCore hostCore(int e) {
        return hostCore[e];
    }

    /** Endpoint {@code e}'s application-aware chooser, or null when its packets ask for a fixed mode. */
    AppAwareRouting appAware(int e) {
        return sources.appAware(e);
    }

    /** Endpoint {@code e}'s node's counters: its NIC's. */
    PortCounterArray nicCounters(int e) {
        return counters[f.endpointNode(e)];
    }

    private Report simulate() {
        long wall0 = System.nanoTime();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long cpu0 = mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : -1;
        for (int g = 0; g < f.globalPortCount(); g++) {
            if (f.peerNode(g) == Fabric.NONE) {
                continue;
            }
            int n = f.nodeOfGlobalPort(g);
            int port = g - f.portBase(n) + 1;
            if (f.isSwitch(n)) {
                switchCore[n].portActive(port, c.bufferPackets(), 0);
            } else {
                hostCore[f.endpointOfPort(g)].portActive(c.bufferPackets(), 0);
            }
        }
        if (c.steady() != null) {
            // every window's end scheduled first, so that it comes before anything else at its instant: the
            // measured window then starts as it would with that instant as the warm-up
            for (long t = c.steady().windowNs(); t <= c.warmupNs(); t += c.steady().windowNs()) {
                queue.push(t, EventQueue.event(WINDOW_END, 0, 0, 0));
            }
        }
        if (c.precise() != null) { // the first batch after the fixed warm-up (or the steady one's cap); found steady earlier, the batches start there
            queue.push(measure.nextBatch(), EventQueue.event(BATCH_END, 0, 0, 0));
        }
        if (c.flows().isEmpty()) {
            for (int e = 0; e < hostCore.length; e++) {
                if (sources.sends(e)) {
                    queue.push(sources.gap(e), EventQueue.event(INJECT, e, 0, 0));
                }
            }
        } else {
            for (int i = 0; i < c.flows().size(); i++) {
                queue.push(c.flows().get(i).startNs(), EventQueue.event(INJECT_FLOW, 0, 0, i));
            }
            for (int p = 0; p < measure.phaseCount(); p++) {
                queue.push(measure.windowStart(p), EventQueue.event(SNAPSHOT, 0, 0, 2 * p));
                queue.push(measure.phaseEnd(p), EventQueue.event(SNAPSHOT, 0, 0, 2 * p + 1));
            }
        }
        sources.startLoops(0);
        long events = processes == null ? runGlobal() : runWindowed();
        if (responses != null) { // the NICs' round trips back by the end, though no event of theirs came since
            responses.settle(measure.end());
        }
        long wallNanos = Math.max(1, System.nanoTime() - wall0);
        long cpuNanos = cpu0 < 0 ? wallNanos : Math.max(1, mx.getCurrentThreadCpuTime() - cpu0);
        return measure.report(counters, nsPerByte, sources.refused(), events, wallNanos, cpuNanos, sources.adaptiveShares());
    }

    /** The global loop: every event in time order, ties in the order scheduled. Returns the events run. */
    private long runGlobal() {
        long events = 0;
        while (!queue.isEmpty() && queue.peekTime() <= measure.end()) {
            long ev = queue.pop();
            long now = queue.poppedTime();
            int kind = EventQueue.type(ev);
            if (isMeasurementEnd(kind)) {
                measurementEnded(kind, now);
                continue;
            }
            events++;
            dispatch(ev, now);
        }
        return events;
    }

    /** Whether an event of {@code kind} ends a steady-state test window or a precision batch (and changes nothing but what is measured). */
    private static boolean isMeasurementEnd(int kind) {
        return kind == WINDOW_END || kind == BATCH_END;
    }

    /**
     * A steady-state test window ({@link #WINDOW_END}) or a precision batch ({@link #BATCH_END})
     * of {@code kind} ends at {@code now}, before anything else at that instant scheduled after
     * it; neither is counted in the events (a run's events are the same as without detection or
     * the precision stop). Either may schedule the end of the next precision batch: the first once
     * the run is steady, another while the estimates are not yet precise.
     */
    private void measurementEnded(int kind, long now) {
        boolean nextBatch = kind == WINDOW_END ? measure.windowEnded(now) && c.precise() != null : measure.batchEnded(now);
        if (nextBatch) {
            queue.push(measure.nextBatch(), EventQueue.event(BATCH_END, 0, 0, 0));
        }
    }

    /**
     * The windowed loop ({@link Scheduler#WINDOWED}): from the earliest pending event's time T,
     * every event before T + the lookahead (or before a steady-state window's or a precision
     * batch's end, or after the run's end, whichever comes first) comes from the queue and is
     * sorted by logical process; then each process runs its events in time order, one process
     * after another. What a process schedules for itself within the window joins its list;
     * anything for another process lands at T + lookahead or later (checked in {@link
     * #schedule}: {@link LogicalProcesses#checkLanding}) and goes to the queue. A window
     * cut at a steady-state window's or a batch's end is followed by that end's handling ({@link
     * #measurementEnded}) with every process at its instant, as in the global loop. Returns the
     * events run.
     */
    private long runWindowed() {
        LogicalProcesses lp = processes;
        long events = 0;
        while (!queue.isEmpty() && queue.peekTime() <= measure.end()) {
            long windowStart = queue.peekTime();
            lp.openWindow(windowStart);
            long end = Math.min(windowStart + lp.lookaheadNs(), measure.end() + 1);
            int measurementEnd = -1;
            while (queue.hasBefore(end)) {
                long ev = queue.pop();
                if (isMeasurementEnd(EventQueue.type(ev))) { // first at its instant: everything before it is taken
                    end = queue.poppedTime();
                    measurementEnd = EventQueue.type(ev);
                    break;
                }
                lp.collect(processOf(ev), queue.poppedTime(), ev);
            }
            windowEnd = end;
            lp.sortWindow();
            for (int i = 0; i < lp.activeCount(); i++) {
                int p = lp.active(i);
                currentProcess = p;
                lp.begin(p);
                while (lp.hasNext()) {
                    long ev = lp.take();
                    events++;
                    dispatch(ev, lp.takenTime());
                }
            }
            currentProcess = -1;
            lp.endWindow();
            if (measurementEnd >= 0) {
                measurementEnded(measurementEnd, end);
            }
        }
        return events;
    }

    /** The logical process event {@code ev} happens in (an injection names its endpoint, the others their node). */
    private int processOf(long ev) {
        return EventQueue.type(ev) == INJECT ? processes.ofEndpoint(EventQueue.node(ev)) : processes.ofNode(EventQueue.node(ev));
    }

    /** Runs event {@code ev} at {@code now}: a host's, a switch's, or the traffic's. */
    private void dispatch(long ev, long now) {
        int kind = EventQueue.type(ev);
        int node = EventQueue.node(ev);
        int port = EventQueue.port(ev);
        int arg = EventQueue.arg(ev);
        if (kind == INJECT) {
            sources.inject(node, -1, now);
            schedule(now + sources.gap(node), EventQueue.event(INJECT, node, 0, 0));
            return;
        }
        if (kind == SNAPSHOT) {
            measure.snapshot(arg, counters);
            return;
        }
        if (kind == INJECT_FLOW) {
            Flow fl = c.flows().get(arg);
            if (now < fl.stopNs() && (fl.packets() == 0 || flowCreated[arg] < fl.packets())) {
                flowCreated[arg] += sources.inject(fl.src(), arg, now);
                schedule(now + sources.flowGap(arg), EventQueue.event(INJECT_FLOW, 0, 0, arg));
            }
            return;
        }
        if (f.isSwitch(node)) {
            SwitchCore s = switchCore[node];
            switch (kind) {
                case ARRIVE -> s.packetArrived(port, arg, now);
                case CREDIT -> s.creditReturned(port, creditLane(arg), creditBlocks(arg), now);
                case QFEEDBACK -> s.qFeedback(port, feedback.row(arg), feedback.take(arg), now);
                case CREDIT_FEEDBACK -> {
                    s.creditReturned(port, creditLane(arg), creditBlocks(arg), now);
                    s.qFeedback(port, feedback.row(arg >>> CREDIT_SLOT_SHIFT), feedback.take(arg >>> CREDIT_SLOT_SHIFT), now);
                }
                default -> s.linkFree(port, now);
            }
        } else {
            int e = f.endpointOfPort(f.globalPort(node, port));
            HostCore h = hostCore[e];
            switch (kind) {
                case ARRIVE -> h.packetArrived(arg, now);
                case CREDIT -> h.creditReturned(creditLane(arg), creditBlocks(arg), now);
                case WAKE -> h.wake(now);
                default -> h.linkFree(now);
            }
            sources.pump(e, now);
        }
    }

    /**
     * Schedules event {@code ev} at {@code at}: into the queue, or in the windowed loop, when it is
     * the running process's own and within the window, into that process's list.
     */
    private void schedule(long at, long ev) {
        if (processes == null) {
            queue.push(at, ev);
        } else {
            scheduleWindowed(at, ev);
        }
    }

    /** {@link #schedule} in the windowed loop (a method apart, so that the global loop's stays small enough to inline everywhere). */
    private void scheduleWindowed(long at, long ev) {
        int p = processOf(ev);
        if (p == currentProcess && at < windowEnd) {
            processes.addLocal(at, ev);
            lastScheduledLocal = true;
            return;
        }
        processes.checkLanding(p, at, ev);
        queue.push(at, ev);
        lastScheduledLocal = false;
    }

    /**
     * Endpoint {@code e} received data packet {@code h} at {@code t}: its sender's NIC counts the
     * round trip when the response would be back (no frame sent, no event: {@link #responses} holds
     * it, and counts it at the sender once the simulation settles at or after its time, as it does
     * before a chooser reads). The packet's NIC send time is in the shared pool.
     */
    private void respondTo(int e, int h, long t) {
        int slid = pool.slid(h);
        int src = slid < endpointOfLid.length ? endpointOfLid[slid] : -1;
        if (src < 0) {
            return;
        }
        long back = responseTimes.ns(e, src);
        if (back != NoLoadLatency.UNREACHABLE) {
            responses.add(src, pool.sent(h), Math.max(0, pool.hops(h) - 1), back, t);
        }
    }

    /** The core sends packet {@code h} from {@code node}'s {@code port}: the link is busy for its bytes, the peer has it after the delay. */
    private void send(int node, int port, int h, long t) {
        int g = f.globalPort(node, port);
        long peer = peerEvent[g];
        long done = t + (long) Math.ceil(pool.bytes(h) * nsPerByte);
        schedule(done, EventQueue.event(FREE, node, port, 0));
        if (peer < 0) {
            pool.release(h);
            return;
        }
        schedule(done + delayNs[g], EventQueue.with(peer, ARRIVE, h));
    }

    /** The lane of a credit event's argument. */
    private static int creditLane(int arg) {
        return arg & 0xF;
    }

    /** The blocks of a credit event's argument. */
    private static int creditBlocks(int arg) {
        return arg >>> CREDIT_BLOCKS_SHIFT & 0xFF;
    }

    /** {@code node}'s {@code port} returns {@code blocks} credits of lane {@code vl}: the peer has them after the link's delay. */
    private void credit(int node, int port, int vl, int blocks, long t) {
        int g = f.globalPort(node, port);
        long peer = peerEvent[g];
        if (peer >= 0) {
            assert blocks > 0 && blocks <= 0xFF;
            long ev = EventQueue.with(peer, CREDIT, vl | blocks << CREDIT_BLOCKS_SHIFT);
            schedule(t + delayNs[g], ev);
            lastCredit = ev;
            lastCreditPort = g;
            lastCreditAt = t;
        }
    }

}
