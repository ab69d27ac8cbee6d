package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
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
import org.junit.jupiter.api.Test;

/**
 * The switch core routing a Dragonfly by hand: Q-adaptive's hysteretic update (Equation 3) on a
 * hand-computed example, its feedback (reward plus estimate) to the upstream router, its source
 * decision leaving the minimal port once the threshold is passed, UGAL taking the non-minimal
 * path when the minimal port is congested, and the input-output queued core moving packets into
 * output buffers (credits returned at the move) and sending them round-robin over lanes; and the
 * hosts' routing modes (issue 19): MIN_HASH and IN_ORDER minimal however congested, NMIN_HASH
 * through the one intermediate its hash names, the bias keeping a packet minimal where no bias
 * would not, Q-adaptive's deterministic modes overriding its table; and a router with two links to
 * a group: minimal routing keeps each pair of hosts on one of them (the one its address hash
 * names, in order) while pairs spread over both, the adaptive algorithms take the less congested.
 */
class DragonflyCoreTest {
    /** Router 0 of group 0 of a dragonfly p=2, a=4, h=2 (9 groups): ports 1-3 local, 4-5 global, 6-7 hosts. */
    private static final String SPEC = "dragonfly:p=2,a=4,h=2";
    private final List<long[]> sent = new ArrayList<>();
    private final List<float[]> feedback = new ArrayList<>();
    private final List<Integer> credits = new ArrayList<>();
    private Fabric fabric;
    private LidAssignment lids;
    private PacketPool pool;
    private SwitchCore core;
    private DragonflySwitch router;

    private void build(DragonflyAlgorithm a, int outputBuffer) throws Exception {
        build(SPEC, a, outputBuffer);
    }

    private void build(String spec, DragonflyAlgorithm a, int outputBuffer) throws Exception {
        fabric = Topologies.generate(spec);
        lids = LidAssigner.assign(fabric);
        ForwardingTables t = new DragonflyEngine(a).route(new RoutingRequest(fabric, lids, RoutingOptions.DEFAULTS));
        int s = 0;
        router = t.dragonfly().of(s);
        int ports = fabric.portCount(fabric.switchNode(s));
        TableStore tables = new TableStore(ports);
        tables.apply(TableInstall.batch(t, s, 5, false));
        pool = new PacketPool(512);
        core = new SwitchCore(ports, 5, 4, outputBuffer, tables, new PortCounterArray(ports), pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                sent.add(new long[] {port, vl, pool.route(h), now});
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
                credits.add(port);
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                throw new AssertionError("discarded a packet from port " + inPort);
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
                feedback.add(new float[] {port, row, value});
            }
        });
        for (int p = 1; p <= ports; p++) {
            core.portActive(p, 4, 0);
        }
    }

    /** A packet from host {@code src} (endpoint) to host {@code dst}, as it arrives on port {@code inPort} after {@code hops} hops. */
    private int packet(int src, int dst, int hops, long route) {
        return packet(src, dst, hops, route, RoutingMode.DEFAULT);
    }

    /** As {@link #packet(int, int, int, long)}, asking for routing mode {@code mode}. */
    private int packet(int src, int dst, int hops, long route, RoutingMode mode) {
        int h = pool.allocate();
        pool.mode(h, mode.code());
        pool.dlid(h, lids.endpointLid(dst));
        pool.slid(h, lids.endpointLid(src));
        pool.bytes(h, 128);
        pool.vl(h, (byte) 0);
        pool.hops(h, hops);
        pool.route(h, route);
        return h;
    }

    private int endpoint(String name) {
        for (int e = 0; e < fabric.endpointCount(); e++) {
            if (fabric.endpointName(e).equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException(name);
    }

    @Test
    void theHystereticUpdateIsEquationThree() throws Exception {
        build(DragonflyAlgorithm.Q_ADAPTIVE, 0);
        int port = router.portOfColumn(0);
        int row = router.row(3, 1);
        float q0 = core.qTable()[row * router.columns()];
        assertEquals(router.qSeed()[row * router.columns()], q0);
        // worse: delta = 500 - q0 > 0, so Q moves by beta (0.04) x delta
        core.qFeedback(port, row, 500, 0);
        float q1 = q0 + 0.04f * (500 - q0);
        assertEquals(q1, core.qTable()[row * router.columns()], 1e-3);
        // better: delta = 300 - q1 < 0, so Q moves by alpha (0.2) x delta
        core.qFeedback(port, row, 300, 0);
        assertEquals(q1 + 0.2f * (300 - q1), core.qTable()[row * router.columns()], 1e-3);
        // a seed of 394 ns (a global and a local hop of 128 bytes at 4 GB/s, 300 and 30 ns): 394 -> 398.24 -> 378.592
        assertEquals(394, q0, 1e-3);
        assertEquals(378.592, core.qTable()[row * router.columns()], 1e-3);
        // feedback for a port of no column (a host port) or a row beyond the table changes nothing
        float[] before = core.qTable();
        core.qFeedback(6, row, 1e6f, 0);
        core.qFeedback(port, router.rows(), 1e6f, 0);
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(core.qTable()));
    }

    @Test
    void aRouterSendsTheRewardPlusItsEstimateUpstreamAndStampsItsOwnArrival() throws Exception {
        build(DragonflyAlgorithm.Q_ADAPTIVE, 0);
        // a packet from group 1 to group 2 arrives on global port 4 or 5 (from the group it leads to) at t = 1000,
        // having arrived at the upstream router at t = 600 (the stamp)
        int src = endpoint("G1_S0_H0");
        int dst = endpoint("G2_S0_H0");
        int in = router.globalPort(1) != 0 ? router.globalPort(1) : router.portOfColumn(router.columns() - 1);
        int h = packet(src, dst, 1, DragonflyHeader.withStamp(0, 600));
        core.packetArrived(in, h, 1000);
        assertEquals(1, sent.size(), "forwarded");
        assertEquals(1, feedback.size(), "one feedback message upstream");
        float[] fb = feedback.get(0);
        assertEquals(in, (int) fb[0]);
        int row = router.row(2, 0);
        assertEquals(row, (int) fb[1]);
        float estimate = Float.MAX_VALUE;
        for (int c = 0; c < router.columns(); c++) {
            estimate = Math.min(estimate, router.qSeed()[row * router.columns() + c]);
        }
        assertEquals(400 + estimate, fb[2], 1e-3, "reward 1000 - 600 plus the least Q-value of the row");
        assertEquals(1000, DragonflyHeader.stamp(sent.get(0)[2]), "the next router's reward starts at this arrival");
    }

    @Test
    void theSourceLeavesTheMinimalPortOnlyWhenABetterOneIsQuickerByTheThreshold() throws Exception {
        build(DragonflyAlgorithm.Q_ADAPTIVE, 0);
        int src = endpoint("G0_S0_H0");
        int dst = endpoint("G5_S1_H0");
        int min = router.globalPort(5) != 0 ? router.globalPort(5) : router.localPort(router.gateway(5));
        core.packetArrived(6, packet(src, dst, 0, 0), 0);
        assertEquals(min, sent.get(0)[0], "seeded: minimal");
        int row = router.row(5, 0);
        // the minimal port's route gets slower: once it is more than q_thld1 (0.2) above the best global port's, that one is taken
        for (int i = 0; i < 200; i++) {
            core.qFeedback(min, row, 5000, 0);
        }
        sent.clear();
        core.packetArrived(6, packet(src, dst, 0, 0), 10);
        int chosen = (int) sent.get(0)[0];
        assertNotEquals(min, chosen);
        // the least of the row, the first of equals, as the paper's simulator takes it
        float[] q = core.qTable();
        int best = 0;
        for (int c = 1; c < router.columns(); c++) {
            best = q[row * router.columns() + c] < q[row * router.columns() + best] ? c : best;
        }
        assertEquals(router.portOfColumn(best), chosen);
        assertEquals(0, sent.get(0)[1], "VC 0 on the first hop");
    }

    /**
     * Q-adaptive's VC is the hop count, and its longest path (global, a local detour and a local
     * hop in the intermediate group, global, local) reaches the destination router after five
     * hops: the hop to the host, a sink that closes no cycle, takes the last VC, not a sixth the
     * switch does not have (it was discarded as NO_LANE: about one packet in 25 under ADV+1 at
     * 0.6 on a 20-router dragonfly, simulated and live).
     */
    @Test
    void aPacketAtItsDestinationRouterAfterFiveHopsIsDeliveredOnTheLastVc() throws Exception {
        build(DragonflyAlgorithm.Q_ADAPTIVE, 0);
        int src = endpoint("G1_S0_H0");
        int dst = endpoint("G0_S0_H1");
        int hostPort = fabric.peerPort(fabric.endpointPort(dst));
        core.packetArrived(1, packet(src, dst, 5, DragonflyHeader.withStamp(DragonflyHeader.DECIDED, 600)), 1000);
        assertEquals(1, sent.size(), "delivered, not discarded");
        assertEquals(hostPort, (int) sent.get(0)[0]);
        assertEquals(4, sent.get(0)[1], "the last of Q-adaptive's five VCs");
        core.linkFree(hostPort, 1500);
        core.packetArrived(2, packet(src, dst, 4, DragonflyHeader.withStamp(DragonflyHeader.DECIDED, 600)), 2000);
        assertEquals(4, sent.get(1)[1], "after four hops, VC 4 as the rule says");
        core.linkFree(hostPort, 2500);
        core.packetArrived(3, packet(src, dst, 2, DragonflyHeader.withStamp(0, 600)), 3000);
        assertEquals(2, sent.get(2)[1], "after two hops, VC 2");
        assertTrue(feedback.isEmpty(), "no feedback between two routers of the destination group");
    }

    @Test
    void ugalTakesTheNonMinimalPathWhenTheMinimalPortIsCongested() throws Exception {
        build(DragonflyAlgorithm.UGALN, 0);
        int dst = endpoint("G5_S1_H0");
        int min = router.globalPort(5) != 0 ? router.globalPort(5) : router.localPort(router.gateway(5));
        core.packetArrived(6, packet(endpoint("G0_S0_H0"), dst, 0, 0), 0);
        assertEquals(min, sent.get(0)[0], "an idle fabric: minimal");
        assertEquals(-1, DragonflyHeader.interGroup(sent.get(0)[2]), "no intermediate");
        // the minimal port now sends and has a credit in use: congestion 2 against 0 on an idle non-minimal port
        for (int i = 0; i < 3; i++) {
            core.packetArrived(7, packet(endpoint("G0_S0_H1"), dst, 0, 0), 1 + i);
        }
        long nonminimal = sent.stream().filter(x -> DragonflyHeader.has(x[2], DragonflyHeader.NONMINIMAL)).count();
        assertTrue(nonminimal >= 1, "UGAL sent nothing non-minimally while the minimal port was congested: " + sent.size() + " sent");
        for (long[] x : sent) {
            if (DragonflyHeader.has(x[2], DragonflyHeader.NONMINIMAL)) {
                int ig = DragonflyHeader.interGroup(x[2]);
                assertTrue(ig != 0 && ig != 5, "an intermediate group is neither the source's nor the destination's: " + ig);
                assertTrue(DragonflyHeader.interRouter(x[2]) >= 0, "UGALn names the intermediate router");
            }
        }
    }

    @Test
    void anInputOutputQueuedCoreReturnsTheCreditAtTheMoveAndSendsFromItsOutputBuffer() throws Exception {
        build(DragonflyAlgorithm.MIN, 2);
        int src = endpoint("G0_S1_H0");
        int dst = endpoint("G0_S0_H0");
        // three packets to a local host: the first is sent at once, the next two wait in the output buffer (2 packets)
        for (int i = 0; i < 3; i++) {
            core.packetArrived(1, packet(src, dst, 1, 0), i);
        }
        assertEquals(1, sent.size());
        assertEquals(3, credits.size(), "every packet left its input buffer: three credits back");
        assertEquals(2, core.outputQueued((int) sent.get(0)[0]));
        core.linkFree((int) sent.get(0)[0], 10);
        core.linkFree((int) sent.get(0)[0], 20);
        assertEquals(3, sent.size());
        assertEquals(0, core.outputQueued((int) sent.get(0)[0]));
    }

    /** The minimal port from router 0 of group 0 towards group {@code g}. */
    private int minimalPort(int g) {
        return router.globalPort(g) != 0 ? router.globalPort(g) : router.localPort(router.gateway(g));
    }

    @Test
    void minHashAndInOrderRouteMinimallyHoweverCongestedTheMinimalPortIs() throws Exception {
        for (RoutingMode m : new RoutingMode[] {RoutingMode.MIN_HASH, RoutingMode.IN_ORDER}) {
            sent.clear();
            build(DragonflyAlgorithm.UGALN, 0);
            int dst = endpoint("G5_S1_H0");
            core.packetArrived(6, packet(endpoint("G0_S0_H0"), dst, 0, 0), 0); // busy, a credit in use: UGAL would leave it
            for (int in = 1; in <= 2; in++) {
                core.packetArrived(in, packet(endpoint("G0_S0_H1"), dst, 0, 0, m), 1 + in);
            }
            core.packetArrived(7, packet(endpoint("G0_S0_H1"), dst, 0, 0, m), 10);
            assertEquals(1, sent.size(), m + ": nothing left by another port; the heads wait for the minimal one");
            for (int i = 0; i < 3; i++) {
                core.linkFree(minimalPort(5), 100 + i);
            }
            assertEquals(4, sent.size(), "the link's four credits");
            for (long[] x : sent) {
                assertEquals(minimalPort(5), x[0], m.name());
                assertEquals(-1, DragonflyHeader.interGroup(x[2]), m + ": no intermediate");
            }
        }
    }

    @Test
    void nminHashTakesTheIntermediateItsHashNamesOnePairOnePath() throws Exception {
        build(DragonflyAlgorithm.UGALN, 0);
        for (String src : new String[] {"G0_S0_H0", "G0_S0_H1"}) {
            for (int g = 1; g < 9; g++) {
                for (String dstName : new String[] {"G" + g + "_S0_H0", "G" + g + "_S3_H1"}) {
                    int dst = endpoint(dstName);
                    long first = -1;
                    for (int k = 0; k < 2; k++) {
                        sent.clear();
                        core.packetArrived(6, packet(endpoint(src), dst, 0, 0, RoutingMode.NMIN_HASH), 0);
                        long st = sent.get(0)[2];
                        String what = src + " to " + dstName;
                        assertTrue(DragonflyHeader.has(st, DragonflyHeader.NONMINIMAL), what + ": non-minimal");
                        int ig = DragonflyHeader.interGroup(st);
                        assertTrue(ig != 0 && ig != g, what + ": intermediate " + ig + " is neither end's group");
                        long path = ((long) ig << 8) | DragonflyHeader.interRouter(st);
                        assertTrue(first < 0 || first == path, what + ": the same pair, the same intermediate");
                        first = path;
                        core.linkFree((int) sent.get(0)[0], 1);
                        core.creditReturned((int) sent.get(0)[0], (int) sent.get(0)[1], 1, 1);
                    }
                }
            }
        }
    }

    /**
     * The minimal port busy with a credit in use (congestion 2) and an idle non-minimal candidate
     * (0): UGAL leaves the minimal path with no bias (2 > 2 x 0) and ADAPTIVE_2's (one packet of this
     * 4-packet buffer), but not with ADAPTIVE_3's (the whole buffer, 4). Each run draws the same
     * candidate (same seed, no other draw), so only the bias differs.
     */
    @Test
    void theModesBiasKeepsAPacketMinimalWhereLessBiasLeavesTheMinimalPath() throws Exception {
        java.util.Map<RoutingMode, Boolean> left = new java.util.EnumMap<>(RoutingMode.class);
        for (RoutingMode m : new RoutingMode[] {RoutingMode.DEFAULT, RoutingMode.ADAPTIVE_0, RoutingMode.ADAPTIVE_2, RoutingMode.ADAPTIVE_3}) {
            sent.clear();
            build(DragonflyAlgorithm.UGALN, 0);
            int dst = endpoint("G5_S1_H0");
            core.packetArrived(6, packet(endpoint("G0_S0_H0"), dst, 0, 0, RoutingMode.MIN_HASH), 0);
            core.packetArrived(7, packet(endpoint("G0_S0_H1"), dst, 0, 0, m), 1);
            left.put(m, sent.size() == 2 && DragonflyHeader.has(sent.get(1)[2], DragonflyHeader.NONMINIMAL));
        }
        assertEquals(java.util.Map.of(RoutingMode.DEFAULT, true, RoutingMode.ADAPTIVE_0, true, RoutingMode.ADAPTIVE_2, true,
                RoutingMode.ADAPTIVE_3, false), left);
    }

    @Test
    void qAdaptivesDeterministicModesOverrideItsTable() throws Exception {
        build(DragonflyAlgorithm.Q_ADAPTIVE, 0);
        int src = endpoint("G0_S0_H0");
        int dst = endpoint("G5_S1_H0");
        int min = minimalPort(5);
        int row = router.row(5, 0);
        for (int i = 0; i < 200; i++) {
            core.qFeedback(min, row, 5000, 0); // the table now prefers another port
        }
        core.packetArrived(6, packet(src, dst, 0, 0, RoutingMode.MIN_HASH), 0);
        assertEquals(min, sent.get(0)[0], "MIN_HASH: minimal whatever the table says");
        core.linkFree(min, 1);
        int nonmin = -1;
        for (int k = 0; k < 3; k++) {
            sent.clear();
            core.packetArrived(6, packet(src, dst, 0, 0, RoutingMode.NMIN_HASH), 10 + k);
            int port = (int) sent.get(0)[0];
            assertNotEquals(min, port, "NMIN_HASH: never the minimal port");
            assertTrue(nonmin < 0 || nonmin == port, "one pair, one port");
            nonmin = port;
            core.linkFree(port, 20 + k);
            core.creditReturned(port, (int) sent.get(0)[1], 1, 20 + k);
        }
    }

    /** Router 0 of group 0 of a dragonfly with two global links from every router to each other group: 3 local ports, 4 global, 4 hosts. */
    private static final String PARALLEL = "dragonfly:p=4,a=4,h=4,g=3,trunk=8";

    /** Sends packet {@code h} in on {@code inPort} and frees the link and credit it took; returns the port it left by. */
    private int route(int inPort, int h, long now) {
        int before = sent.size();
        core.packetArrived(inPort, h, now);
        assertEquals(before + 1, sent.size(), "forwarded at once");
        long[] x = sent.get(before);
        core.linkFree((int) x[0], now);
        core.creditReturned((int) x[0], (int) x[1], 1, now);
        return (int) x[0];
    }

    @Test
    void minimalRoutingKeepsEachPairOnOneParallelLinkAndSpreadsPairsOverAll() throws Exception {
        for (DragonflyAlgorithm a : new DragonflyAlgorithm[] {DragonflyAlgorithm.MIN, DragonflyAlgorithm.UGALG, DragonflyAlgorithm.Q_ADAPTIVE}) {
            for (RoutingMode m : a == DragonflyAlgorithm.MIN ? RoutingMode.values() : new RoutingMode[] {RoutingMode.MIN_HASH, RoutingMode.IN_ORDER}) {
                sent.clear();
                build(PARALLEL, a, 0);
                int first = router.globalPort(1);
                assertEquals(2, router.parallels(first));
                java.util.Set<Integer> used = new java.util.HashSet<>();
                for (int slot = 0; slot < 4; slot++) {
                    int src = endpoint("G0_S0_H" + slot);
                    int in = fabric.peerPort(fabric.endpointPort(src));
                    for (int r = 0; r < 4; r++) {
                        for (int k = 0; k < 4; k++) {
                            int dst = endpoint("G1_S" + r + "_H" + k);
                            int expected = org.fabriclab.routing.dragonfly.DragonflyRules.parallelLink(router, first,
                                    RoutingMode.hash(lids.endpointLid(src), lids.endpointLid(dst)));
                            String what = a.key() + " " + m + " " + src + " to " + dst;
                            for (int i = 0; i < 3; i++) { // the same pair, the same link, however the other is loaded
                                assertEquals(expected, route(in, packet(src, dst, 0, 0, m), 10L * i), what);
                            }
                            used.add(expected);
                        }
                    }
                }
                assertEquals(java.util.Set.of(first, router.parallel(first, 1)), used, a.key() + " " + m + ": pairs on both links");
            }
        }
    }

    @Test
    void adaptiveAlgorithmsTakeTheLessCongestedOfTheParallelLinks() throws Exception {
        for (DragonflyAlgorithm a : new DragonflyAlgorithm[] {DragonflyAlgorithm.UGALG, DragonflyAlgorithm.UGALN, DragonflyAlgorithm.PAR,
                DragonflyAlgorithm.Q_ADAPTIVE}) {
            sent.clear();
            build(PARALLEL, a, 0);
            int first = router.globalPort(1);
            int second = router.parallel(first, 1);
            int src = endpoint("G0_S0_H0");
            int dst = endpoint("G1_S2_H1");
            int in = fabric.peerPort(fabric.endpointPort(src));
            // one packet of the pair on its way: that link sends and has a credit in use; the next takes the other, minimally
            core.packetArrived(in, packet(src, dst, 0, 0), 0);
            int busy = (int) sent.get(0)[0];
            assertTrue(busy == first || busy == second, a.key() + ": minimal at first, by " + busy);
            core.packetArrived(fabric.peerPort(fabric.endpointPort(endpoint("G0_S0_H1"))), packet(endpoint("G0_S0_H1"), dst, 0, 0), 1);
            assertEquals(2, sent.size(), a.key());
            assertEquals(busy == first ? second : first, sent.get(1)[0], a.key() + ": the idle parallel link");
            assertEquals(-1, DragonflyHeader.interGroup(sent.get(1)[2]), a.key() + ": still minimal");
        }
    }
}
