package org.fabriclab.routing.engine;

import java.util.Arrays;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.torus.SourceRoutes;

/**
 * The linear forwarding tables (LFTs) of every switch, as OpenSM holds them: per switch, per
 * destination LID, the output port; port 0 is the switch itself, {@link #NO_PATH} (0xFF) means
 * no route. Immutable once built; a routing engine fills a {@link Builder}.
 *
 * <p>The entries are held twice: per switch, as they are dumped and pushed, and per LID (one row
 * of every switch's port for that LID), as engines fill them and the analysis walks them one
 * destination at a time. A walk down one LID's column of per-switch tables would miss the cache
 * at every switch.
 */
public final class ForwardingTables {
    /** OpenSM's OSM_NO_PATH: the LFT entry of an unreachable LID. */
    public static final int NO_PATH = 0xFF;

    private final Fabric fabric;
    private final LidAssignment lids;
    private final byte[][] ports;
    /** Entry of switch s for LID l at {@code l * switches + s}. */
    private final byte[] byLid;
    private final int switches;
    private final String engine;
    private final PathLanes lanes;
    private final ArTables ar;
    private final SourceRoutes sourceRoutes;
    private final DragonflyTables dragonfly;

    private ForwardingTables(Fabric fabric, LidAssignment lids, byte[] byLid, String engine, PathLanes lanes, ArTables ar) {
        this(fabric, lids, byLid, engine, lanes, ar, null, null);
    }

    private ForwardingTables(Fabric fabric, LidAssignment lids, byte[] byLid, String engine, PathLanes lanes, ArTables ar,
                             SourceRoutes sourceRoutes, DragonflyTables dragonfly) {
        this.fabric = fabric;
        this.lids = lids;
        this.byLid = byLid;
        this.switches = fabric.switchCount();
        this.ports = transpose(byLid, switches, lids.maxLid() + 1);
        this.engine = engine;
        this.lanes = lanes;
        this.ar = ar;
        this.sourceRoutes = sourceRoutes;
        this.dragonfly = dragonfly;
    }

    /** Per-switch tables from per-LID rows, a cache-sized block at a time. */
    private static byte[][] transpose(byte[] byLid, int switches, int size) {
        byte[][] out = new byte[switches][size];
        final int block = 64;
        for (int l0 = 0; l0 < size; l0 += block) {
            int l1 = Math.min(size, l0 + block);
            for (int s0 = 0; s0 < switches; s0 += block) {
                int s1 = Math.min(switches, s0 + block);
                for (int s = s0; s < s1; s++) {
                    byte[] row = out[s];
                    for (int l = l0; l < l1; l++) {
                        row[l] = byLid[l * switches + s];
                    }
                }
            }
        }
        return out;
    }

    public static Builder builder(Fabric fabric, LidAssignment lids) {
        return new Builder(fabric, lids);
    }

    public Fabric fabric() {
        return fabric;
    }

    public LidAssignment lids() {
        return lids;
    }

    /** The engine that produced these tables. */
    public String engine() {
        return engine;
    }

    public PathLanes lanes() {
        return lanes;
    }

    /** The same LFTs with adaptive-routing tables beside them, as engine {@code name} produced them. */
    public ForwardingTables withAr(ArTables a, String name) {
        return new ForwardingTables(fabric, lids, byLid, name, lanes, a, sourceRoutes, dragonfly);
    }

    /**
     * The same LFTs carrying Angara's source routes between the torus switches, as engine {@code
     * name} produced them: hosts write the route into each packet and the switches forward by it;
     * the LFTs deliver the last hop.
     */
    public ForwardingTables withSourceRoutes(SourceRoutes r, String name) {
        return new ForwardingTables(fabric, lids, byLid, name, lanes, ar, r, dragonfly);
    }

    /**
     * The same LFTs (the minimal routes) with a Dragonfly engine's routing state beside them, as
     * engine {@code name} produced them: the switches route each packet by the algorithm, the LFTs
     * deliver to their hosts.
     */
    public ForwardingTables withDragonfly(DragonflyTables d, String name) {
        return new ForwardingTables(fabric, lids, byLid, name, lanes, ar, sourceRoutes, d);
    }

    /** The Dragonfly routing state, or null if the switches route by the LFTs (and AR) alone. */
    public DragonflyTables dragonfly() {
        return dragonfly;
    }

    /** The source routes, or null if the switches route by the LFTs alone. */
    public SourceRoutes sourceRoutes() {
        return sourceRoutes;
    }

    /** The adaptive-routing tables beside the LFTs, or null if the engine computes none. */
    public ArTables ar() {
        return ar;
    }

    /** Number of entries in each table: {@code maxLid + 1}. */
    public int size() {
        return lids.maxLid() + 1;
    }

    /** Output port of switch number {@code s} for {@code lid}, or {@link #NO_PATH}. */
    public int port(int s, int lid) {
        return lid < ports[s].length ? byLid[lid * switches + s] & 0xFF : NO_PATH;
    }

    /** A copy of switch {@code s}'s table, one unsigned byte per LID. */
    public byte[] table(int s) {
        return ports[s].clone();
    }

    /** True if both hold the same entries for every switch. */
    public boolean sameEntries(ForwardingTables other) {
        if (other.ports.length != ports.length) {
            return false;
        }
        for (int s = 0; s < ports.length; s++) {
            if (!Arrays.equals(ports[s], other.ports[s])) {
                return false;
            }
        }
        return true;
    }

    /** Fills the tables of one routing run; not thread-safe. */
    public static final class Builder {
        private final Fabric fabric;
        private final LidAssignment lids;
        private final byte[] byLid;
        private final int switches;
        private PathLanes lanes = PathLanes.SINGLE;
        private ArTables ar;

        private Builder(Fabric fabric, LidAssignment lids) {
            this.fabric = fabric;
            this.lids = lids;
            switches = fabric.switchCount();
            long entries = (long) switches * (lids.maxLid() + 1);
            if (entries > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("tables of " + switches + " switches by " + (lids.maxLid() + 1)
                        + " LIDs exceed 2^31 entries");
            }
            byLid = new byte[(int) entries];
            Arrays.fill(byLid, (byte) NO_PATH);
        }

        public Builder set(int s, int lid, int port) {
            assert port == NO_PATH || port <= fabric.portCount(fabric.switchNode(s)) : "port " + port;
            assert s >= 0 && s < switches : "switch " + s;
            byLid[lid * switches + s] = (byte) port;
            return this;
        }

        public int get(int s, int lid) {
            assert s >= 0 && s < switches : "switch " + s;
            return byLid[lid * switches + s] & 0xFF;
        }

        public Builder lanes(PathLanes l) {
            lanes = l;
            return this;
        }

        public Builder ar(ArTables a) {
            ar = a;
            return this;
        }

        public ForwardingTables build(String engine) {
            return new ForwardingTables(fabric, lids, byLid.clone(), engine, lanes, ar);
        }
    }
}
