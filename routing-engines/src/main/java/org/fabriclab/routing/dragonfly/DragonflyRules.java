package org.fabriclab.routing.dragonfly;

import static org.fabriclab.routing.dragonfly.DragonflyHeader.DECIDED;
import static org.fabriclab.routing.dragonfly.DragonflyHeader.NONMINIMAL;
import static org.fabriclab.routing.dragonfly.DragonflyHeader.REACHED;
import static org.fabriclab.routing.dragonfly.DragonflyHeader.has;

/**
 * The Dragonfly routing rules, written once for the two that follow them: the switch core, which
 * at each decision point picks one outcome by its policy (congestion, Q-values, its random
 * generator), and {@code DragonflyPaths}, which follows every outcome the rules allow to prove the
 * hop bound and deadlock freedom. Pure functions of a router's {@link DragonflySwitch} and a
 * packet's state ({@link DragonflyHeader}); no allocation.
 *
 * <p>At a router, for a packet of source group S and destination group D that has crossed
 * {@code hops} router-to-router links: {@link #arrive} first (the intermediate is reached when the
 * packet stands at it), then {@link #decision}: what the algorithm may choose here; the policy
 * applies an outcome ({@link DragonflyHeader#nonminimal}, or a Q-adaptive port); then
 * {@link #port} (the port towards the current target when no port was chosen) and {@link #vc}.
 * In the destination group every algorithm routes minimally.
 *
 * <p>Where a router has several links to one place (parallel links to a router of its group, or
 * to another group: {@link DragonflySwitch#parallels}), {@link #port} names the lowest and any of
 * them is the same hop by these rules (the next router's decisions and VCs read groups and routers
 * reached, not the link taken): the switch core spreads packets over them ({@link #parallelLink}
 * for a flow that must keep one path, the least congested for an adaptive algorithm), and
 * {@code DragonflyPaths} follows every one.
 */
public final class DragonflyRules {
    /** No choice here: follow {@link #port}. */
    public static final int FOLLOW = 0;
    /** VALg / VALn at the source router: pick a random intermediate. */
    public static final int VALIANT = 1;
    /** UGAL at the source router (also PAR's first decision): minimal, or a random intermediate, by congestion. */
    public static final int UGAL = 2;
    /** PAR at the next router of the source group, for a packet still minimal: switch to non-minimal or not, once. */
    public static final int PAR_RECHECK = 3;
    /** Q-adaptive at the source router: any non-host port, by the Q-table row, the threshold and epsilon. */
    public static final int Q_SOURCE = 4;
    /** Q-adaptive at the first router of an intermediate group without a link to D: the minimal port or a local detour. */
    public static final int Q_INTERMEDIATE = 5;

    private DragonflyRules() {
    }

    /** The state once the packet stands at router {@code r}: marks the intermediate reached where it is. */
    public static long arrive(DragonflySwitch r, long state) {
        if (has(state, NONMINIMAL) && !has(state, REACHED) && DragonflyHeader.interGroup(state) == r.group()) {
            int ir = DragonflyHeader.interRouter(state);
            if (ir < 0 || ir == r.index()) {
                return state | REACHED;
            }
        }
        return state;
    }

    /** What the algorithm may decide at router {@code r} for this packet (after {@link #arrive}). */
    public static int decision(DragonflyAlgorithm alg, DragonflySwitch r, int srcGroup, int dstGroup, int hops, long state) {
        if (dstGroup == r.group()) {
            return FOLLOW;
        }
        boolean intermediates = r.groups() >= 3;
        return switch (alg) {
            case MIN -> FOLLOW;
            case VALG, VALN -> hops == 0 && intermediates ? VALIANT : FOLLOW;
            case UGALG, UGALN -> hops == 0 && intermediates ? UGAL : FOLLOW;
            case PAR -> hops == 0 && intermediates ? UGAL
                    : r.group() == srcGroup && intermediates && !has(state, NONMINIMAL) && !has(state, DECIDED) ? PAR_RECHECK : FOLLOW;
            case Q_ADAPTIVE -> hops == 0 ? Q_SOURCE
                    : r.group() != srcGroup && !has(state, DECIDED) ? (r.globalPort(dstGroup) != 0 ? FOLLOW : Q_INTERMEDIATE) : FOLLOW;
        };
    }

    /**
     * The intermediate a random draw {@code k} in {@code 0..intermediateGroups(r)-1} names: the
     * groups but S and D, in order.
     */
    public static int intermediateGroup(int k, int srcGroup, int dstGroup) {
        int lo = Math.min(srcGroup, dstGroup);
        int hi = Math.max(srcGroup, dstGroup);
        int g = k;
        if (g >= lo) {
            g++;
        }
        if (g >= hi && hi != lo) {
            g++;
        }
        return g;
    }

    /** How many intermediate groups a packet from S to D may take (S differs from D). */
    public static int intermediateGroups(DragonflySwitch r) {
        return r.groups() - 2;
    }

    /** True if the algorithm's non-minimal path names a router of the intermediate group (VALn, UGALn, PAR). */
    public static boolean throughRouter(DragonflyAlgorithm alg) {
        return alg.throughRouter();
    }

    /**
     * The port towards the packet's current target: its intermediate while it is non-minimal and
     * has not reached it, else its destination router; 0 when the destination router is {@code r}
     * (the LFT names the host's port).
     */
    public static int port(DragonflySwitch r, int dstGroup, int dstRouter, long state) {
        if (has(state, NONMINIMAL) && !has(state, REACHED)) {
            int ig = DragonflyHeader.interGroup(state);
            if (ig != r.group()) {
                return towardGroup(r, ig);
            }
            return r.localPort(DragonflyHeader.interRouter(state));
        }
        return minimal(r, dstGroup, dstRouter);
    }

    /** The minimal port to router {@code dstRouter} of group {@code dstGroup}; 0 if that is {@code r}. */
    public static int minimal(DragonflySwitch r, int dstGroup, int dstRouter) {
        if (dstGroup == r.group()) {
            return dstRouter == r.index() ? 0 : r.localPort(dstRouter);
        }
        return towardGroup(r, dstGroup);
    }

    /** The port towards group {@code g} (not r's): r's own global link to it, or the local port to the group's gateway. */
    public static int towardGroup(DragonflySwitch r, int g) {
        int p = r.globalPort(g);
        return p != 0 ? p : r.localPort(r.gateway(g));
    }

    /** The bits of a packet's address hash ({@link RoutingMode#hash}) that pick among parallel links, apart from a detour's. */
    private static final int LINK_HASH_SHIFT = 24;

    /**
     * Of the links parallel to {@code port} (itself included), the one an address hash {@code hash}
     * names ({@link RoutingMode#hash} of the packet's source and destination LIDs): every packet of
     * a pair takes the same link, so a deterministic path stays one path and in order, and pairs
     * spread over the links. {@code port} itself where it has no parallel link (or is 0, none).
     */
    public static int parallelLink(DragonflySwitch r, int port, int hash) {
        int n = port < 1 ? 1 : r.parallels(port);
        return n < 2 ? port : r.parallel(port, parallelIndex(hash, n));
    }

    /** The index in {@code 0..n-1} among {@code n} parallel links that address hash {@code hash} names. */
    public static int parallelIndex(int hash, int n) {
        return RoutingMode.pick(hash, LINK_HASH_SHIFT, n);
    }

    /**
     * The virtual channel of the hop the packet takes from router {@code r} (the rules in
     * {@link DragonflyAlgorithm}); a packet of the source group to itself takes the destination
     * group's VC.
     */
    public static int vc(DragonflyAlgorithm alg, DragonflySwitch r, int srcGroup, int dstGroup, int hops, long state) {
        boolean nonmin = has(state, NONMINIMAL);
        boolean reached = has(state, REACHED);
        boolean inDest = r.group() == dstGroup;
        return switch (alg) {
            case MIN -> inDest ? 1 : 0;
            case VALG -> inDest ? 2 : reached ? 1 : 0;
            case VALN -> inDest ? 3 : reached ? 2 : nonmin && r.group() == DragonflyHeader.interGroup(state) ? 1 : 0;
            case UGALG -> inDest ? 2 : r.group() == srcGroup ? 0 : 1;
            case UGALN -> inDest ? 3 : r.group() == srcGroup ? 0 : nonmin && !reached ? 1 : 2;
            case PAR -> inDest ? 4 : r.group() == srcGroup ? (nonmin ? 1 : 0) : nonmin && !reached ? 2 : 3;
            case Q_ADAPTIVE -> hops;
        };
    }
}
