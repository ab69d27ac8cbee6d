package org.fabriclab.agent.core;

import java.util.List;

/**
 * One versioned batch of table changes, as the manager sends it: the version it moves from and
 * to, LFT blocks to replace, a new LFT top (0 keeps it), SL-to-VL tables to replace, and the
 * adaptive-routing tables of the InfiniBand Adaptive Routing Manager: AR groups (sets of ports
 * a packet may take) to define or delete, AR LFT blocks (per LID, the group to choose from; 0 for
 * none, the LFT's static port then), and whether AR is enabled (null keeps the setting); and for
 * source routing on a torus, the port of each direction (+X +Y +Z +K -X -Y -Z -K; 0 where the
 * switch has none; an empty array turns source routing off, null keeps the setting); and the input
 * ports whose packets follow the static LFT even with AR on (null keeps the setting).
 */
public record TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl,
                         List<ArGroup> arGroups, List<ArBlock> arBlocks, Boolean arEnabled, int[] directionPorts,
                         int[] arStaticInputs) {
    /** Without adaptive-routing changes. */
    public TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl) {
        this(fromVersion, toVersion, blocks, lftTop, sl2vl, List.of(), List.of(), null, null, null);
    }

    /** Without a change of the static input ports. */
    public TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl,
                      List<ArGroup> arGroups, List<ArBlock> arBlocks, Boolean arEnabled, int[] directionPorts) {
        this(fromVersion, toVersion, blocks, lftTop, sl2vl, arGroups, arBlocks, arEnabled, directionPorts, null);
    }

    /** Without a change of the direction ports. */
    public TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl,
                      List<ArGroup> arGroups, List<ArBlock> arBlocks, Boolean arEnabled) {
        this(fromVersion, toVersion, blocks, lftTop, sl2vl, arGroups, arBlocks, arEnabled, null, null);
    }

    /**
     * AR group {@code group} (1..{@link SwitchTables#MAX_AR_GROUPS}): its ports (no ports deletes
     * it), and those of them on non-minimal paths, taken only while the minimal ones are more loaded.
     */
    public record ArGroup(int group, int[] ports, int[] detours) {
        /** A group of minimal ports only. */
        public ArGroup(int group, int[] ports) {
            this(group, ports, new int[0]);
        }
    }

    /** 64 AR LFT entries of block {@code block}: the AR group of each LID, 0 for none. */
    public record ArBlock(int block, short[] groups) {
    }

    /** 64 entries of LFT block {@code block}. */
    public record Block(int block, byte[] ports) {
    }

    /** SL-to-VL map for an input/output port pair; 0 means every port. */
    public record Sl2Vl(int inputPort, int outputPort, byte[] vl) {
    }

    public TableBatch {
        blocks = List.copyOf(blocks);
        sl2vl = List.copyOf(sl2vl);
        arGroups = List.copyOf(arGroups);
        arBlocks = List.copyOf(arBlocks);
        directionPorts = directionPorts == null ? null : directionPorts.clone();
        arStaticInputs = arStaticInputs == null ? null : arStaticInputs.clone();
    }
}
