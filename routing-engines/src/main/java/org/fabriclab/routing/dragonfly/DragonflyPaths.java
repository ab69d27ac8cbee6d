package org.fabriclab.routing.dragonfly;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.graph.ChannelDependencyGraph;

/**
 * The proof that a Dragonfly algorithm delivers every packet within its hop bound and cannot
 * deadlock on its virtual channels: every path {@link DragonflyRules} allows is followed, from
 * every router to every router, taking every outcome of every decision (every intermediate group
 * and router, minimal or not, every port a Q-adaptive router may explore, each of several
 * parallel links to one router or group), and each hop's dependency (channel, VC) to (channel,
 * VC) is recorded; the algorithm is deadlock-free if that graph is acyclic (Dally and Seitz, per
 * virtual channel). A hop to no linked router, a VC beyond
 * the algorithm's, or a path longer than its bound is a violation, counted with examples.
 *
 * <p>The path to the destination group does not depend on the destination router (decisions read
 * groups only), so paths are followed per source router and destination group, and fanned out to
 * every router of the destination group at the end. Paths from hosts and to hosts add no
 * dependency that can close a cycle (nothing waits behind a host's link), so only router-to-router
 * channels are vertices. Dependencies are kept per router in a bit matrix of (input port, VC) by
 * (output port, VC), so a repeated one costs a bit test.
 */
public final class DragonflyPaths {
    /**
     * What the proof found.
     *
     * @param algorithm    the algorithm's key
     * @param vcs          its virtual channels
     * @param hopBound     its longest path by its rules, in router-to-router hops
     * @param maxHops      the longest path followed
     * @param paths        paths followed (per source router, destination group and destination router)
     * @param dependencies distinct (channel, VC) dependencies
     * @param deadlockFree the dependency graph is acyclic and no path broke a rule
     * @param cycle        a dependency cycle, as channel names with their VC, where there is one
     * @param violations   paths that reached no router, took a VC beyond the algorithm's, or went beyond the bound
     * @param examples     a few of them
     */
    public record Proof(String algorithm, int vcs, int hopBound, int maxHops, long paths, long dependencies, boolean deadlockFree,
                        List<String> cycle, long violations, List<String> examples) {
        public Proof {
            cycle = List.copyOf(cycle);
            examples = List.copyOf(examples);
        }
    }

    /** The VC of a hop, as {@link DragonflyRules#vc} gives it; tests put a wrong one in to see the proof find its cycle. */
    interface VcRule {
        int vc(DragonflyAlgorithm alg, DragonflySwitch r, int srcGroup, int dstGroup, int hops, long state);
    }

    private final DragonflyTables tables;
    private final VcRule vcRule;
    private final DragonflyAlgorithm alg;
    private final Fabric f;
    private final DragonflyFabric df;
    private final int vcs;
    /** Per switch number: bits of (inPort * vcs + inVc) * width + (outPort * vcs + outVc). */
    private final long[][] bits;
    private final int[] width;
    private long paths;
    private int maxHops;
    private long violations;
    private final List<String> examples = new ArrayList<>();

    private DragonflyPaths(DragonflyTables tables, VcRule vcRule) {
        this.tables = tables;
        this.vcRule = vcRule;
        this.alg = tables.algorithm();
        this.df = tables.dragonfly();
        this.f = df.fabric();
        this.vcs = alg.vcs();
        int n = f.switchCount();
        bits = new long[n][];
        width = new int[n];
        for (int s = 0; s < n; s++) {
            width[s] = (f.portCount(f.switchNode(s)) + 1) * vcs;
            bits[s] = new long[(int) (((long) width[s] * width[s] + 63) >>> 6)];
        }
    }

    /** Follows every path of {@code tables}' algorithm and judges them. */
    public static Proof prove(DragonflyTables tables) {
        return prove(tables, DragonflyRules::vc);
    }

    /** The proof with another VC rule (tests). */
    static Proof prove(DragonflyTables tables, VcRule vcRule) {
        DragonflyPaths p = new DragonflyPaths(tables, vcRule);
        p.followAll();
        return p.proof();
    }

    private void followAll() {
        for (int s = 0; s < f.switchCount(); s++) {
            int srcGroup = df.group(s);
            for (int d = 0; d < df.groups(); d++) {
                follow(s, -1, -1, 0, 0L, srcGroup, d);
            }
        }
    }

    /**
     * At router {@code s}, having come in on its port {@code inPort} on {@code inVc} (-1: from a
     * host), after {@code hops} router-to-router hops, with header state {@code state}.
     */
    private void follow(int s, int inPort, int inVc, int hops, long state, int srcGroup, int dstGroup) {
        DragonflySwitch r = tables.of(s);
        long st = DragonflyRules.arrive(r, state);
        if (r.group() == dstGroup) {
            for (int d = 0; d < df.routers(); d++) {
                paths++;
                if (d == r.index()) {
                    maxHops = Math.max(maxHops, hops);
                    continue;
                }
                hop(s, inPort, inVc, hops, DragonflyRules.minimal(r, dstGroup, d), st, srcGroup, dstGroup, false);
            }
            return;
        }
        int decision = DragonflyRules.decision(alg, r, srcGroup, dstGroup, hops, st);
        switch (decision) {
            case DragonflyRules.FOLLOW -> hop(s, inPort, inVc, hops, DragonflyRules.port(r, dstGroup, -1, st), st, srcGroup, dstGroup, true);
            case DragonflyRules.VALIANT -> intermediates(s, r, inPort, inVc, hops, st, srcGroup, dstGroup);
            case DragonflyRules.UGAL -> {
                long min = DragonflyHeader.minimal(st);
                hop(s, inPort, inVc, hops, DragonflyRules.port(r, dstGroup, -1, min), min, srcGroup, dstGroup, true);
                intermediates(s, r, inPort, inVc, hops, st, srcGroup, dstGroup);
            }
            case DragonflyRules.PAR_RECHECK -> {
                long decided = st | DragonflyHeader.DECIDED;
                hop(s, inPort, inVc, hops, DragonflyRules.port(r, dstGroup, -1, decided), decided, srcGroup, dstGroup, true);
                intermediates(s, r, inPort, inVc, hops, decided, srcGroup, dstGroup);
            }
            case DragonflyRules.Q_SOURCE, DragonflyRules.Q_INTERMEDIATE -> {
                long next = decision == DragonflyRules.Q_INTERMEDIATE ? st | DragonflyHeader.DECIDED : st;
                for (int c = 0; c < r.columns(); c++) { // every non-host port: parallel links are columns of their own
                    link(s, inPort, inVc, hops, r.portOfColumn(c), next, srcGroup, dstGroup, true);
                }
            }
            default -> throw new IllegalStateException("decision " + decision);
        }
    }

    /** Every intermediate group (and router, for the algorithms that name one) the packet may be sent through. */
    private void intermediates(int s, DragonflySwitch r, int inPort, int inVc, int hops, long st, int srcGroup, int dstGroup) {
        boolean router = DragonflyRules.throughRouter(alg);
        for (int k = 0; k < DragonflyRules.intermediateGroups(r); k++) {
            int ig = DragonflyRules.intermediateGroup(k, srcGroup, dstGroup);
            for (int ir = router ? 0 : -1; ir < (router ? df.routers() : 0); ir++) {
                long next = DragonflyHeader.nonminimal(st, ig, ir);
                hop(s, inPort, inVc, hops, DragonflyRules.port(r, dstGroup, -1, next), next, srcGroup, dstGroup, true);
            }
        }
    }

    /**
     * The hop from router {@code s} by the rules' {@code port}, over each of the links parallel to
     * it (the switch core may take any: {@link DragonflyRules}); follows on unless {@code onwards}
     * is false.
     */
    private void hop(int s, int inPort, int inVc, int hops, int port, long st, int srcGroup, int dstGroup, boolean onwards) {
        DragonflySwitch r = tables.of(s);
        int n = port < 1 || port > r.ports() ? 1 : r.parallels(port);
        for (int k = 0; k < n; k++) {
            link(s, inPort, inVc, hops, n == 1 ? port : r.parallel(port, k), st, srcGroup, dstGroup, onwards);
        }
    }

    /** The hop from router {@code s} out of {@code port} with state {@code st}; follows on unless {@code onwards} is false. */
    private void link(int s, int inPort, int inVc, int hops, int port, long st, int srcGroup, int dstGroup, boolean onwards) {
        DragonflySwitch r = tables.of(s);
        int node = f.switchNode(s);
        if (port < 1 || port > f.portCount(node) || f.peerNode(f.globalPort(node, port)) == Fabric.NONE
                || !f.isSwitch(f.peerNode(f.globalPort(node, port)))) {
            violation("at " + f.name(node) + " towards group " + dstGroup + ": port " + port + " leads to no router");
            return;
        }
        int vc = vcRule.vc(alg, r, srcGroup, dstGroup, hops, st);
        if (vc < 0 || vc >= vcs) {
            violation("at " + f.name(node) + " towards group " + dstGroup + ": VC " + vc + " is beyond the algorithm's " + vcs);
            return;
        }
        if (hops + 1 > alg.maxHops()) {
            violation("a path from group " + srcGroup + " to group " + dstGroup + " takes more than " + alg.maxHops() + " hops at "
                    + f.name(node));
            return;
        }
        if (inPort > 0) {
            int w = width[s];
            long bit = (long) (inPort * vcs + inVc) * w + port * vcs + vc;
            bits[s][(int) (bit >>> 6)] |= 1L << bit;
        }
        int next = f.switchIndex(f.peerNode(f.globalPort(node, port)));
        int nextIn = f.peerPort(f.globalPort(node, port));
        if (onwards) {
            follow(next, nextIn, vc, hops + 1, st, srcGroup, dstGroup);
        } else {
            maxHops = Math.max(maxHops, hops + 1);
        }
    }

    private void violation(String what) {
        violations++;
        if (examples.size() < 5) {
            examples.add(what);
        }
    }

    private Proof proof() {
        int vertices = f.globalPortCount() * vcs;
        ChannelDependencyGraph.Builder b = ChannelDependencyGraph.builder(vertices);
        long dependencies = 0;
        for (int s = 0; s < f.switchCount(); s++) {
            int node = f.switchNode(s);
            int w = width[s];
            long[] m = bits[s];
            for (int word = 0; word < m.length; word++) {
                for (long x = m[word]; x != 0; x &= x - 1) {
                    long bit = ((long) word << 6) + Long.numberOfTrailingZeros(x);
                    int in = (int) (bit / w);
                    int out = (int) (bit % w);
                    // the incoming channel leaves the peer on its port; the outgoing one leaves this switch
                    int inChannel = f.peerGlobalPort(f.globalPort(node, in / vcs));
                    int outChannel = f.globalPort(node, out / vcs);
                    b.add(inChannel * vcs + in % vcs, outChannel * vcs + out % vcs);
                    dependencies++;
                }
            }
        }
        Optional<int[]> cycle = b.build().findCycle();
        List<String> names = new ArrayList<>();
        cycle.ifPresent(c -> {
            for (int v : c) {
                int ch = v / vcs;
                int node = f.nodeOfGlobalPort(ch);
                names.add(f.name(node) + "[" + (ch - f.portBase(node) + 1) + "]->" + f.name(f.peerNode(ch)) + " (VC" + v % vcs + ")");
            }
        });
        return new Proof(alg.key(), vcs, alg.maxHops(), maxHops, paths, dependencies, cycle.isEmpty() && violations == 0, names,
                violations, examples);
    }
}
