package org.fabriclab.agent.core;

import java.util.Arrays;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * The tables a switch forwards by, as one immutable snapshot: the linear forwarding table (LFT),
 * its top, the SL-to-VL map and the version the manager gave them, with the adaptive-routing
 * groups, a torus's direction ports or a Dragonfly's routing beside them. The forwarding path reads the
 * current snapshot through one volatile reference ({@link TableStore}); a write builds a new
 * snapshot and swaps it in whole, so a packet never sees half-written tables.
 */
public final class SwitchTables {
    /** LFT entries per block (IBA: LinearForwardingTable attribute blocks of 64 LIDs). */
    public static final int BLOCK = 64;
    /** Entries the switch can hold: every unicast LID, 0..0xBFFF (IBA LinearFDBCap). */
    public static final int CAPACITY = 0xC000;
    /** LFT entry of a LID without a route (OpenSM's OSM_NO_PATH). */
    public static final int NO_ROUTE = 0xFF;
    /** Service levels (and so SL-to-VL entries per port pair). */
    public static final int SERVICE_LEVELS = 16;
    /**
     * The highest table version, 2^53 - 1: the largest integer a double holds exactly (JSON,
     * JavaScript clients). Versions are unsigned; a write to a version above it is refused, so no
     * writer can leave a switch at a version the next one cannot raise by one.
     */
    public static final long MAX_VERSION = (1L << 53) - 1;
    /** AR group numbers are 1..MAX_AR_GROUPS (0 in the AR LFT means none). */
    public static final int MAX_AR_GROUPS = 4095;
    private static final int[][] NO_GROUPS = new int[1][];

    private final long version;
    private final byte[] lft;
    private final int lftTop;
    private final int ports;
    private final byte[] sl2vl;
    /** The one SL-to-VL map every port pair has, when they all have the same (the usual case); else null. */
    private final byte[] uniformSl2vl;
    /** Per LID, its AR group (0: none); as long as the LFT. */
    private final short[] arLft;
    /** Per AR group number, its ports, or null where none is defined. */
    private final int[][] arGroups;
    /** Per AR group number, its detour ports (a subset of its ports), or null where it has none. */
    private final int[][] arDetours;
    /** Per AR group number, per index into its ports, true for a detour port; null where it has none. */
    private final boolean[][] arDetourAt;
    private final boolean arEnabled;
    /** The ports whose arrivals follow the static LFT even with AR on, ascending. */
    private final int[] arStaticInputs;
    /** Per port, true if it is one of {@link #arStaticInputs}. */
    private final boolean[] arStaticInput;
    /** Source routing on a torus: the port of each direction (0: none), or an empty array when off. */
    private final int[] directionPorts;
    /** Per port, the direction it leads in, or -1. */
    private final int[] directionOfPort;
    private static final int[] NO_DIRECTIONS = new int[0];
    /** The Dragonfly routing, or null when the switch routes by its LFT (and AR) alone. */
    private final DragonflySwitch dragonfly;

    SwitchTables(long version, byte[] lft, int lftTop, int ports, byte[] sl2vl) {
        this(version, lft, lftTop, ports, sl2vl, new short[lft.length], NO_GROUPS, NO_GROUPS, false, NO_DIRECTIONS, NO_DIRECTIONS, null);
    }

    SwitchTables(long version, byte[] lft, int lftTop, int ports, byte[] sl2vl, short[] arLft, int[][] arGroups, int[][] arDetours,
                 boolean arEnabled, int[] directionPorts, int[] arStaticInputs, DragonflySwitch dragonfly) {
        this.dragonfly = dragonfly;
        this.version = version;
        this.lft = lft;
        this.lftTop = lftTop;
        this.ports = ports;
        this.sl2vl = sl2vl;
        this.uniformSl2vl = uniform(sl2vl);
        this.arLft = arLft;
        this.arGroups = arGroups;
        this.arDetours = arDetours;
        this.arDetourAt = new boolean[arGroups.length][];
        for (int g = 0; g < arGroups.length && g < arDetours.length; g++) {
            if (arGroups[g] != null && arDetours[g] != null) {
                arDetourAt[g] = new boolean[arGroups[g].length];
                for (int i = 0; i < arGroups[g].length; i++) {
                    for (int d : arDetours[g]) {
                        arDetourAt[g][i] |= arGroups[g][i] == d;
                    }
                }
            }
        }
        this.arEnabled = arEnabled;
        this.arStaticInputs = arStaticInputs.clone();
        Arrays.sort(this.arStaticInputs);
        this.arStaticInput = new boolean[ports + 1];
        for (int p : arStaticInputs) {
            arStaticInput[p] = true;
        }
        this.directionPorts = directionPorts;
        this.directionOfPort = new int[ports + 1];
        Arrays.fill(directionOfPort, -1);
        for (int d = 0; d < directionPorts.length; d++) {
            if (directionPorts[d] > 0) {
                directionOfPort[directionPorts[d]] = d;
            }
        }
    }

    /** The map shared by every port pair, or null: the forwarding path then reads 16 bytes, not (ports+1)^2 x 16. */
    private static byte[] uniform(byte[] sl2vl) {
        for (int i = SERVICE_LEVELS; i < sl2vl.length; i++) {
            if (sl2vl[i] != sl2vl[i % SERVICE_LEVELS]) {
                return null;
            }
        }
        return Arrays.copyOf(sl2vl, SERVICE_LEVELS);
    }

    /** Empty tables of a switch with {@code ports} ports: every LID unrouted, every SL on VL 0. */
    public static SwitchTables empty(int ports) {
        return new SwitchTables(0, new byte[0], 0, ports, new byte[(ports + 1) * (ports + 1) * SERVICE_LEVELS]);
    }

    public long version() {
        return version;
    }

    public int lftTop() {
        return lftTop;
    }

    public int portCount() {
        return ports;
    }

    /** Output port for {@code lid}, or {@link #NO_ROUTE}. Hot path: no allocation, no bounds exception. */
    public int port(int lid) {
        return lid >= 0 && lid < lft.length ? lft[lid] & 0xFF : NO_ROUTE;
    }

    /** The VL a packet of service level {@code sl} takes from {@code in} to {@code out}. */
    public int vl(int in, int out, int sl) {
        byte[] u = uniformSl2vl;
        if (u != null) {
            return u[sl];
        }
        return sl2vl[((in * (ports + 1)) + out) * SERVICE_LEVELS + sl];
    }

    /** True if the switch chooses among AR groups' ports; false: static routing (DR) by the LFT alone. */
    public boolean arEnabled() {
        return arEnabled;
    }

    /**
     * The switch's Dragonfly routing (algorithm, place, maps, Q-table seed), or null: it routes by
     * its LFT (and AR). Hot path.
     */
    public DragonflySwitch dragonfly() {
        return dragonfly;
    }

    /** True if this switch forwards source-routed packets (it has direction ports). */
    public boolean sourceRouting() {
        return directionPorts.length > 0;
    }

    /** The port of direction {@code d}, 0 if none (or source routing is off). */
    public int directionPort(int d) {
        return d < directionPorts.length ? directionPorts[d] : 0;
    }

    /** Number of directions of the torus (2n), 0 when source routing is off. */
    public int directionCount() {
        return directionPorts.length;
    }

    /** The direction port {@code p} leads in, -1 if none. */
    public int directionOfPort(int p) {
        return p < directionOfPort.length ? directionOfPort[p] : -1;
    }

    /** The direction ports (a copy; empty when source routing is off). */
    public int[] directionPorts() {
        return directionPorts.clone();
    }

    /** The AR group of {@code lid}, 0 for none. Hot path. */
    public int arGroup(int lid) {
        return lid >= 0 && lid < arLft.length ? arLft[lid] : 0;
    }

    /** The ports of AR group {@code group}, or null if it is not defined (do not modify). */
    public int[] arPorts(int group) {
        return group > 0 && group < arGroups.length ? arGroups[group] : null;
    }

    /**
     * Per member of AR group {@code group} (in {@link #arPorts} order), true for a detour port; null
     * if the group has none (do not modify). Hot path.
     */
    public boolean[] arDetourFlags(int group) {
        return group > 0 && group < arDetourAt.length ? arDetourAt[group] : null;
    }

    /** The detour ports of AR group {@code group}, ascending (a copy; empty if none). */
    public int[] arDetours(int group) {
        int[] d = group > 0 && group < arDetours.length ? arDetours[group] : null;
        if (d == null) {
            return new int[0];
        }
        int[] out = d.clone();
        Arrays.sort(out);
        return out;
    }

    /** True if packets arriving on {@code port} follow the static LFT even with AR on. Hot path. */
    public boolean arStaticInput(int port) {
        return port >= 0 && port < arStaticInput.length && arStaticInput[port];
    }

    /** The input ports that follow the static LFT even with AR on, ascending (a copy). */
    public int[] arStaticInputs() {
        return arStaticInputs.clone();
    }

    /** The highest AR group number defined, 0 if none. */
    public int arGroupTop() {
        for (int g = arGroups.length - 1; g > 0; g--) {
            if (arGroups[g] != null) {
                return g;
            }
        }
        return 0;
    }

    /** A copy of AR LFT block {@code n}'s 64 entries. */
    public short[] arBlock(int n) {
        short[] b = new short[BLOCK];
        int from = n * BLOCK;
        if (from < arLft.length) {
            System.arraycopy(arLft, from, b, 0, Math.min(BLOCK, arLft.length - from));
        }
        return b;
    }

    short[] arLftArray() {
        return arLft;
    }

    int[][] arGroupsArray() {
        return arGroups;
    }

    int[][] arDetoursArray() {
        return arDetours;
    }

    /** A copy of block {@code n}'s 64 entries. */
    public byte[] block(int n) {
        byte[] b = new byte[BLOCK];
        Arrays.fill(b, (byte) NO_ROUTE);
        int from = n * BLOCK;
        if (from < lft.length) {
            System.arraycopy(lft, from, b, 0, Math.min(BLOCK, lft.length - from));
        }
        return b;
    }

    /** Number of LFT entries allocated (a multiple of 64, up to {@link #CAPACITY}). */
    int allocated() {
        return lft.length;
    }

    byte[] lftArray() {
        return lft;
    }

    byte[] sl2vlArray() {
        return sl2vl;
    }
}
