package org.fabriclab.routing.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * What one switch installs from an engine's {@link ForwardingTables}: the one mapping from an
 * engine's tables to a switch's, used by the simulator and the scenarios (through the switch
 * core's {@code TableInstall}) and by the daemon's push (through its proto mapping). Whatever
 * the meaning of a switch table (which SL rides which VL, when AR is on, what the direction
 * ports are), it is decided here, once.
 *
 * <p>It is a plain model in routing-engines, not the switch core's {@code TableBatch}, because of
 * the one-way module rule: the daemon depends on routing-engines and proto, never on the switch
 * agent, and both sides must map from the same thing. A batch is a versioned change; this is the
 * whole state a switch should hold, so a writer can diff it against what it last wrote.
 *
 * <p>The mapping: every LFT block up to the highest LID (entries past the tables' end are
 * {@link ForwardingTables#NO_PATH}) with that LID as the LFT top; SL {@code i} on VL {@code i mod
 * dataVls} for every port pair, then the engine's lane turns (every SL from {@code in} to {@code
 * out} on the turn's VL); the AR groups, AR LFT (one entry per LFT entry, 0 for none), static
 * input ports of the engine's {@link ArTables} (none without them), AR enabled when the engine
 * made AR tables and the caller routes adaptively; and for source routes, the switch's direction
 * ports (none without them); and a Dragonfly engine's routing of the switch (none without it).
 *
 * @param lft            every LFT entry, a whole number of {@link #BLOCK}-entry blocks
 * @param lftTop         the highest LID
 * @param sl2vl          SL-to-VL maps in the order they are applied: the default for every port pair first
 * @param arGroups       per AR group (numbered from 1), its ports
 * @param arDetours      per AR group, its detour ports
 * @param arLft          per LID, its AR group (0 for none), as long as {@code lft}
 * @param arEnabled      whether the switch routes adaptively
 * @param arStaticInputs input ports whose packets keep to the static LFT
 * @param directionPorts per torus direction, the port (0 for none); empty when the switch does not source-route
 * @param dragonfly      the switch's Dragonfly routing (algorithm, place, maps, Q-table seed), or null when it routes by
 *                       its LFT (and AR) alone
 */
public record SwitchInstall(byte[] lft, int lftTop, List<LaneMap> sl2vl, int[][] arGroups, int[][] arDetours, short[] arLft,
                            boolean arEnabled, int[] arStaticInputs, int[] directionPorts, DragonflySwitch dragonfly) {
    /** Entries in one LFT block (IBA LinearForwardingTable attribute). */
    public static final int BLOCK = 64;
    /** Service levels of an SL-to-VL map. */
    public static final int SERVICE_LEVELS = 16;

    /** SL-to-VL map of a port pair ({@code 0} for every port), one VL per SL. */
    public record LaneMap(int inputPort, int outputPort, byte[] vl) {
        public LaneMap {
            vl = vl.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof LaneMap m && m.inputPort == inputPort && m.outputPort == outputPort && Arrays.equals(m.vl, vl);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * inputPort + outputPort) + Arrays.hashCode(vl);
        }
    }

    /** What a switch holds before its first write: no LFT, every SL on VL 0, no AR, no source routing. */
    public static final SwitchInstall FRESH = new SwitchInstall(new byte[0], 0, List.of(new LaneMap(0, 0, new byte[SERVICE_LEVELS])),
            new int[0][], new int[0][], new short[0], false, new int[0], new int[0], null);

    public SwitchInstall {
        sl2vl = List.copyOf(sl2vl);
    }

    /**
     * Switch {@code s}'s tables.
     *
     * @param dataVls  the data VLs the switch has (the default SL-to-VL map wraps at it; below 1 counts as 1)
     * @param adaptive whether AR is enabled where the engine made AR tables
     */
    public static SwitchInstall of(ForwardingTables t, int s, int dataVls, boolean adaptive) {
        byte[] table = t.table(s);
        int blocks = (table.length + BLOCK - 1) / BLOCK;
        byte[] lft = Arrays.copyOf(table, blocks * BLOCK);
        Arrays.fill(lft, table.length, lft.length, (byte) ForwardingTables.NO_PATH);
        byte[] sl2vl = new byte[SERVICE_LEVELS];
        for (int sl = 0; sl < SERVICE_LEVELS; sl++) {
            sl2vl[sl] = (byte) (sl % Math.max(1, dataVls));
        }
        List<LaneMap> maps = new ArrayList<>(List.of(new LaneMap(0, 0, sl2vl)));
        ArTables ar = t.ar();
        int[][] groups = new int[ar == null ? 0 : ar.groupCount(s)][];
        int[][] detours = new int[groups.length][];
        short[] arLft = new short[lft.length];
        int[] staticInputs = new int[0];
        if (ar != null) {
            for (int g = 1; g <= groups.length; g++) {
                groups[g - 1] = ar.ports(s, g);
                detours[g - 1] = ar.detours(s, g);
            }
            for (int[] turn : ar.laneTurns(s)) {
                byte[] vl = new byte[SERVICE_LEVELS];
                Arrays.fill(vl, (byte) turn[2]);
                maps.add(new LaneMap(turn[0], turn[1], vl));
            }
            for (int lid = 0; lid < arLft.length && lid < ar.size(s); lid++) {
                arLft[lid] = (short) ar.group(s, lid);
            }
            staticInputs = ar.staticInputs(s);
        }
        int[] directions = t.sourceRoutes() == null ? new int[0]
                : t.sourceRoutes().torus().directionPorts(t.fabric().switchNode(s));
        DragonflySwitch dragonfly = t.dragonfly() == null ? null : t.dragonfly().of(s);
        return new SwitchInstall(lft, table.length - 1, maps, groups, detours, arLft, ar != null && adaptive, staticInputs, directions,
                dragonfly);
    }

    /** The same tables with Dragonfly routing {@code d} (a switch that keeps learning, or starts again from another seed). */
    public SwitchInstall withDragonfly(DragonflySwitch d) {
        return new SwitchInstall(lft, lftTop, sl2vl, arGroups, arDetours, arLft, arEnabled, arStaticInputs, directionPorts, d);
    }

    /** Number of LFT blocks. */
    public int blocks() {
        return lft.length / BLOCK;
    }

    /** LFT block {@code b} (a copy). */
    public byte[] lftBlock(int b) {
        return Arrays.copyOfRange(lft, b * BLOCK, (b + 1) * BLOCK);
    }

    /** AR LFT block {@code b} (a copy). */
    public short[] arBlock(int b) {
        return Arrays.copyOfRange(arLft, b * BLOCK, (b + 1) * BLOCK);
    }

    /** True if AR LFT block {@code b} names any group. */
    public boolean arBlockUsed(int b) {
        for (int i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
            if (arLft[i] != 0) {
                return true;
            }
        }
        return false;
    }

    /** True if {@code o} has the same adaptive-routing state: groups, detours, AR LFT, AR on or off, static inputs. */
    public boolean sameAr(SwitchInstall o) {
        return arEnabled == o.arEnabled && Arrays.deepEquals(arGroups, o.arGroups) && Arrays.deepEquals(arDetours, o.arDetours)
                && Arrays.equals(arLft, o.arLft) && Arrays.equals(arStaticInputs, o.arStaticInputs);
    }

    /** The same tables, field by field (a record's own equals would compare the arrays by reference). */
    @Override
    public boolean equals(Object o) {
        return o instanceof SwitchInstall other && lftTop == other.lftTop && Arrays.equals(lft, other.lft) && sameLanes(other)
                && sameAr(other) && Arrays.equals(directionPorts, other.directionPorts) && Objects.equals(dragonfly, other.dragonfly);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(lft) + lftTop;
    }

    /** True if {@code o} has the same SL-to-VL maps. */
    public boolean sameLanes(SwitchInstall o) {
        return sl2vl.equals(o.sl2vl);
    }

    /** The highest VL any SL-to-VL map names, plus one: the data VLs this install needs. */
    public int lanesNeeded() {
        int max = 0;
        for (LaneMap m : sl2vl) {
            for (byte v : m.vl) {
                max = Math.max(max, v);
            }
        }
        return max + 1;
    }
}
