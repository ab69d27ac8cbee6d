package org.fabriclab.bench;

import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
import org.fabriclab.routing.dragonfly.DragonflyLids;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.topology.Topologies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Dragonfly algorithms' per-packet routing in the switch core: router 0 of group 0 of the
 * Q-adaptive paper's 1,056-node system ({@code paper:qadaptive-1056}: 4 hosts, 7 local and 4 global
 * ports), with the engine's tables installed as the simulator installs them and the paper's switch
 * (5 VCs, 20-packet input and output buffers per VC). One op is one packet's whole life in the
 * core, as in {@link SwitchCoreBenchmark}: it arrives, is routed by the algorithm (its decision and
 * VC), moves into its output buffer and is sent; its link frees and its credit returns; under
 * Q-adaptive the downstream router's feedback for it is applied too (Equation 3), as it would come
 * back. {@code df-min} is the floor: what the other algorithms cost beyond it is their decision.
 * <ul>
 *   <li>{@link #atSourceRouter}: a packet from one of the router's hosts to a host of another group
 *       (the destinations cycle over every other group and their hosts): the source decision of
 *       VALg/VALn (an intermediate drawn), UGALg/UGALn/PAR (minimal against non-minimal by
 *       congestion) and Q-adaptive (its Q-table row, the threshold, epsilon).
 *   <li>{@link #atIntermediateRouter}: a packet that crossed a global link from the group that link
 *       leads to and goes on to a third group: for VALg/VALn/UGALg/UGALn/PAR the first router of
 *       its intermediate group (the intermediate reached, minimal from there), for Q-adaptive its
 *       decision there (the minimal port against a local detour, with {@code q_thld2}; the
 *       destination groups are those this router has no global link to, where that decision is
 *       taken), for MIN a packet that entered its destination group here and takes a local hop.
 * </ul>
 * Run {@code java -jar bench/target/benchmarks.jar DragonflyRouting -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes allocated per op (the target is 0).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DragonflyRoutingBenchmark {
    /** The paper's switch: VCs, input and output buffer per VC. */
    static final int VCS = 5;
    static final int BUFFER = 20;

    @Param({"df-min", "df-valg", "df-valn", "df-ugalg", "df-ugaln", "df-par", "q-adaptive"})
    public String algorithm;

    /** The routing mode the packets ask for (issue 19; {@code -p routingMode=ADAPTIVE_3}); DEFAULT, none, as documented figures ran. */
    @Param({"DEFAULT"})
    public String routingMode;
    private int modeCode;

    private PacketPool pool;
    private SwitchCore core;
    private DragonflySwitch router;
    // the packets' fields, precomputed so that an op builds nothing: source op, then intermediate op
    private int[] srcPort;
    private int[] srcSlid;
    private int[] srcDlid;
    private int[] srcRow;
    private int[] midPort;
    private int[] midSlid;
    private int[] midDlid;
    private int[] midRow;
    private int nextSrc;
    private int nextMid;
    private boolean learns;
    private int lastPort = -1;
    private int lastVl;
    private long now;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        modeCode = RoutingMode.byName(routingMode).code();
        Fabric fabric = Topologies.generate("paper:qadaptive-1056");
        LidAssignment lids = LidAssigner.assign(fabric);
        ForwardingTables t = new DragonflyEngine(DragonflyAlgorithm.byKey(algorithm))
                .route(new RoutingRequest(fabric, lids, RoutingOptions.DEFAULTS));
        router = t.dragonfly().of(0);
        learns = router.qSeed() != null;
        int ports = fabric.portCount(fabric.switchNode(0));
        TableStore tables = new TableStore(ports);
        tables.apply(TableInstall.batch(t, 0, VCS, false));
        pool = new PacketPool(ports * VCS * BUFFER * 2 + 64);
        core = new SwitchCore(ports, VCS, BUFFER, BUFFER, tables, new PortCounterArray(ports, false), pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long at) {
                lastPort = port;
                lastVl = vl;
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long at) {
            }

            @Override
            public void discarded(int h, int inPort, long at) {
                throw new IllegalStateException("a benchmark packet was discarded on port " + inPort);
            }

            @Override
            public void qFeedback(int port, int row, float value, long at) {
            }
        });
        for (int p = 1; p <= ports; p++) {
            core.portActive(p, BUFFER, 0);
        }
        packets(fabric, lids);
    }

    /**
     * The benchmark's packets. From the source router: every (host of this router, host of another
     * group) pair, the destinations taking each group in turn. Through it: a packet from a host of
     * each group this router has a global link to, for each host of every third group (Q-adaptive:
     * those groups this router has no link to), or for MIN for each host of this group on another
     * router.
     */
    private void packets(Fabric fabric, LidAssignment lids) {
        DragonflyLids where = router.lids();
        int hosts = fabric.endpointCount();
        int[] lidOf = new int[hosts];
        int[] entry = new int[hosts];
        int[] mine = new int[router.hostsPerRouter()];
        int own = 0;
        for (int e = 0; e < hosts; e++) {
            lidOf[e] = lids.endpointLid(e);
            entry[e] = where.entry(lidOf[e]);
            if (DragonflyLids.group(entry[e]) == router.group() && DragonflyLids.router(entry[e]) == router.index()) {
                mine[own++] = e;
            }
        }
        int[][] src = new int[4][];
        int[][] mid = new int[4][];
        for (int k = 0; k < 4; k++) {
            src[k] = new int[hosts * mine.length];
            mid[k] = new int[hosts * router.groups()];
        }
        int ns = 0;
        int nm = 0;
        int span = router.hostsPerRouter() * router.routers();
        for (int i = 0; i < span; i++) {
            for (int g = 0; g < router.groups(); g++) {
                int dst = host(entry, g, i);
                if (dst < 0) {
                    continue;
                }
                boolean ownGroup = g == router.group();
                for (int s : mine) {
                    if (!ownGroup) {
                        fill(src, ns++, hostPort(s, fabric), lidOf[s], lidOf[dst], router.row(g, DragonflyLids.slot(entry[s])));
                    }
                }
                DragonflyAlgorithm a = router.algorithm();
                boolean through = a == DragonflyAlgorithm.MIN ? ownGroup && DragonflyLids.router(entry[dst]) != router.index()
                        : !ownGroup && !(a == DragonflyAlgorithm.Q_ADAPTIVE && router.globalPort(g) != 0);
                if (!through) {
                    continue;
                }
                for (int from = 0; from < router.groups(); from++) {
                    int s = router.globalPort(from) == 0 || from == g ? -1 : host(entry, from, i);
                    if (s >= 0) {
                        fill(mid, nm++, router.globalPort(from), lidOf[s], lidOf[dst], router.row(g, DragonflyLids.slot(entry[s])));
                    }
                }
            }
        }
        if (ns == 0 || nm == 0) {
            throw new IllegalStateException("no benchmark packets: " + ns + " from the source router, " + nm + " through it");
        }
        srcPort = java.util.Arrays.copyOf(src[0], ns);
        srcSlid = java.util.Arrays.copyOf(src[1], ns);
        srcDlid = java.util.Arrays.copyOf(src[2], ns);
        srcRow = java.util.Arrays.copyOf(src[3], ns);
        midPort = java.util.Arrays.copyOf(mid[0], nm);
        midSlid = java.util.Arrays.copyOf(mid[1], nm);
        midDlid = java.util.Arrays.copyOf(mid[2], nm);
        midRow = java.util.Arrays.copyOf(mid[3], nm);
    }

    private static void fill(int[][] columns, int i, int port, int slid, int dlid, int row) {
        columns[0][i] = port;
        columns[1][i] = slid;
        columns[2][i] = dlid;
        columns[3][i] = row;
    }

    /** Host {@code i} of group {@code g} in endpoint order, or -1. */
    private static int host(int[] entry, int g, int i) {
        for (int e = 0, seen = 0; e < entry.length; e++) {
            if (entry[e] >= 0 && DragonflyLids.group(entry[e]) == g && seen++ == i) {
                return e;
            }
        }
        return -1;
    }

    private static int hostPort(int endpoint, Fabric fabric) {
        int node = fabric.endpointNode(endpoint);
        int g = fabric.globalPort(node, 1);
        return fabric.peerPort(g);
    }

    private int packet(int slid, int dlid, int hops, long route) {
        int h = pool.allocate();
        pool.dlid(h, dlid);
        pool.slid(h, slid);
        pool.bytes(h, 128);
        pool.vl(h, 0);
        pool.sl(h, 0);
        pool.hops(h, hops);
        pool.mode(h, modeCode);
        pool.route(h, route);
        return h;
    }

    @Benchmark
    public int atSourceRouter() {
        now += 40;
        int i = nextSrc;
        nextSrc = i + 1 == srcPort.length ? 0 : i + 1;
        core.packetArrived(srcPort[i], packet(srcSlid[i], srcDlid[i], 0, 0), now);
        return after(srcRow[i]);
    }

    @Benchmark
    public int atIntermediateRouter() {
        now += 40;
        int i = nextMid;
        nextMid = i + 1 == midPort.length ? 0 : i + 1;
        long route = DragonflyHeader.withStamp(0, now - 350);
        DragonflyAlgorithm a = router.algorithm();
        if (a != DragonflyAlgorithm.MIN && a != DragonflyAlgorithm.Q_ADAPTIVE) {
            // routed through this group (VALn, UGALn, PAR: through this very router), not yet reached
            route = DragonflyHeader.nonminimal(route, router.group(), a == DragonflyAlgorithm.VALG || a == DragonflyAlgorithm.UGALG
                    ? -1 : router.index());
        }
        core.packetArrived(midPort[i], packet(midSlid[i], midDlid[i], 1, route), now);
        return after(midRow[i]);
    }

    /** The packet's link frees, its credit returns and, under Q-adaptive, its feedback arrives from downstream. */
    private int after(int row) {
        int port = lastPort;
        core.linkFree(port, now);
        core.creditReturned(port, lastVl, 1, now);
        if (learns) {
            core.qFeedback(port, row, 400 + (now & 63), now);
        }
        return port;
    }
}
