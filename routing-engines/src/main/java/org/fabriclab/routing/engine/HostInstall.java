package org.fabriclab.routing.engine;

import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.torus.SourceRoutes;

/**
 * What the channel adapters install from an engine's {@link ForwardingTables}: the host-side
 * counterpart of {@link SwitchInstall}, and for the same reason a plain model here (the daemon's
 * push maps it to {@code WriteSourceRoutes}, the simulator and the live host core to their route
 * tables by DLID). With a source-routing engine (Angara's), an adapter whose switch is in the
 * routes' node set holds, for every host on another member switch that the routes reach, the
 * route between the two switches; the destination switch's LFT delivers the last hop. Adapters
 * outside the node set, and every adapter when the engine made no source routes, hold none.
 *
 * <p>Immutable; built once per routing result.
 */
public final class HostInstall {
    private final ForwardingTables tables;
    private final SourceRoutes routes;
    /** Per endpoint, its switch's index in the routes' node set, or -1 (none, or not a member). */
    private final int[] member;

    private HostInstall(ForwardingTables t) {
        tables = t;
        routes = t.sourceRoutes();
        Fabric f = t.fabric();
        member = new int[f.endpointCount()];
        for (int e = 0; e < member.length; e++) {
            member[e] = routes == null ? -1 : routes.indexOf(routes.torus().torusNode(f.endpointSwitch(e)));
        }
    }

    /** The adapters' routes of {@code t}. */
    public static HostInstall of(ForwardingTables t) {
        return new HostInstall(t);
    }

    /** Whether the engine made source routes at all (without, every adapter's table is empty). */
    public boolean hasRoutes() {
        return routes != null;
    }

    /** Whether endpoint {@code src}'s adapter holds a source route to endpoint {@code dst}. */
    public boolean holds(int src, int dst) {
        int from = member[src];
        int to = member[dst];
        return from >= 0 && to >= 0 && from != to && !routes.unroutable(from, to);
    }

    /** The directions of the route from {@code src}'s switch to {@code dst}'s; only where {@link #holds}. */
    public byte[] directions(int src, int dst) {
        return routes.directions(member[src], member[dst]);
    }

    /**
     * The node-set member of {@code endpoint}'s switch, or -1: what an adapter holds depends on its
     * switch only, so callers share work (and tables) per member, and per pair of members.
     */
    public int member(int endpoint) {
        return member[endpoint];
    }

    /** Switches in the routes' node set (0 without source routes). */
    public int members() {
        return routes == null ? 0 : routes.size();
    }

    /** The destination LID under which {@code dst}'s route is held. */
    public int dlid(int dst) {
        return tables.lids().endpointLid(dst);
    }
}
