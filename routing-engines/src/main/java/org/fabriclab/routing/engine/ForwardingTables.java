package org.fabriclab.routing.engine;

import java.util.Arrays;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * The linear forwarding tables (LFTs) of every switch, as OpenSM holds them: per switch, per
 * destination LID, the output port; port 0 is the switch itself, {@link #NO_PATH} (0xFF) means
 * no route. Immutable once built; a routing engine fills a {@link Builder}.
 */
public final class ForwardingTables {
    /** OpenSM's OSM_NO_PATH: the LFT entry of an unreachable LID. */
    public static final int NO_PATH = 0xFF;

    private final Fabric fabric;
    private final LidAssignment lids;
    private final byte[][] ports;
    private final String engine;
    private final PathLanes lanes;

    private ForwardingTables(Fabric fabric, LidAssignment lids, byte[][] ports, String engine, PathLanes lanes) {
        this.fabric = fabric;
        this.lids = lids;
        this.ports = ports;
        this.engine = engine;
        this.lanes = lanes;
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

    /** Number of entries in each table: {@code maxLid + 1}. */
    public int size() {
        return lids.maxLid() + 1;
    }

    /** Output port of switch number {@code s} for {@code lid}, or {@link #NO_PATH}. */
    public int port(int s, int lid) {
        return lid < ports[s].length ? ports[s][lid] & 0xFF : NO_PATH;
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
        private final byte[][] ports;
        private PathLanes lanes = PathLanes.SINGLE;

        private Builder(Fabric fabric, LidAssignment lids) {
            this.fabric = fabric;
            this.lids = lids;
            ports = new byte[fabric.switchCount()][lids.maxLid() + 1];
            for (byte[] t : ports) {
                Arrays.fill(t, (byte) NO_PATH);
            }
        }

        public Builder set(int s, int lid, int port) {
            assert port == NO_PATH || port <= fabric.portCount(fabric.switchNode(s)) : "port " + port;
            ports[s][lid] = (byte) port;
            return this;
        }

        public int get(int s, int lid) {
            return ports[s][lid] & 0xFF;
        }

        public Builder lanes(PathLanes l) {
            lanes = l;
            return this;
        }

        public ForwardingTables build(String engine) {
            return new ForwardingTables(fabric, lids, ports, engine, lanes);
        }
    }
}
