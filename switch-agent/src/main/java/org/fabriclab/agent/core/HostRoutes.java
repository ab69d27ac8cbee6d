package org.fabriclab.agent.core;

import java.util.Arrays;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.HostInstall;
import org.fabriclab.routing.engine.PathLanes;
import org.fabriclab.routing.torus.SourceRoute;

/**
 * A channel adapter's routing state, by destination LID: the source route its packets carry (0:
 * routed by the switches' tables) and the path's SL from the engine's lanes. The route table is
 * the one the daemon's heavy sweep writes into each adapter (WriteSourceRoutes), so the simulator
 * installs exactly what a live host would hold. Immutable; {@link #route} and {@link #sl} allocate
 * nothing.
 */
public final class HostRoutes {
    private static final long[] NONE = new long[0];
    private final long[] routeByLid;
    private final PathLanes lanes;
    private final int endpoint;

    /**
     * @param routeByLid per destination LID the encoded source route (may be shorter than the
     *                   highest LID: the rest is 0); not copied, not to be changed
     * @param lanes      the engine's path lanes
     * @param endpoint   the host's endpoint number in the fabric {@code lanes} were computed on
     */
    public HostRoutes(long[] routeByLid, PathLanes lanes, int endpoint) {
        this.routeByLid = routeByLid;
        this.lanes = lanes;
        this.endpoint = endpoint;
    }

    /** Every endpoint's routing state from {@code t}: its source-route table as the daemon writes it and its lanes. */
    public static HostRoutes[] of(ForwardingTables t) {
        long[][] routes = sourceRouteTables(t);
        HostRoutes[] out = new HostRoutes[routes.length];
        for (int e = 0; e < out.length; e++) {
            out[e] = new HostRoutes(routes[e], t.lanes(), e);
        }
        return out;
    }

    /**
     * Per endpoint, its source routes by destination LID: to every host on another switch of the
     * routes' node set, the route between the two switches (as Angara's adapter holds them; the
     * destination switch's LFT delivers the last hop). Empty tables when the engine made no source
     * routes. The daemon's push sends the same entries. Every host on one switch holds the same
     * table, so the hosts of a switch share one array (not to be changed).
     */
    public static long[][] sourceRouteTables(ForwardingTables t) {
        HostInstall install = HostInstall.of(t);
        long[][] out = new long[t.fabric().endpointCount()][];
        Arrays.fill(out, NONE);
        long[][] ofMember = new long[install.members()][];
        for (int e = 0; e < out.length; e++) {
            int m = install.member(e);
            if (m >= 0) {
                if (ofMember[m] == null) {
                    ofMember[m] = tableOf(install, e, out.length, t.lids().maxLid());
                }
                out[e] = ofMember[m];
            }
        }
        return out;
    }

    /** The table of endpoint {@code e}'s adapter: one encoding per destination switch, entered under each of its hosts' LIDs. */
    private static long[] tableOf(HostInstall install, int e, int endpoints, int maxLid) {
        long[] table = NONE;
        long[] toMember = new long[install.members()];
        for (int e2 = 0; e2 < endpoints; e2++) {
            if (!install.holds(e, e2)) {
                continue;
            }
            if (table == NONE) {
                table = new long[maxLid + 1];
            }
            int to = install.member(e2);
            if (toMember[to] == 0) {
                toMember[to] = SourceRoute.encode(install.directions(e, e2));
            }
            table[install.dlid(e2)] = toMember[to];
        }
        return table;
    }

    /** The source route to {@code dlid}, or 0. */
    public long route(int dlid) {
        return dlid < routeByLid.length ? routeByLid[dlid] : 0;
    }

    /** The SL of the path to {@code dlid} (the engine's lane). */
    public int sl(int dlid) {
        return lanes.lane(endpoint, dlid);
    }
}
