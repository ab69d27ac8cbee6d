package org.fabriclab.agent.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * One versioned batch of table changes, as the manager sends it: the version it moves from and
 * to, LFT blocks to replace, a new LFT top (0 keeps it), SL-to-VL tables to replace, and the
 * adaptive-routing tables of the InfiniBand Adaptive Routing Manager: AR groups (sets of ports
 * a packet may take) to define or delete, AR LFT blocks (per LID, the group to choose from; 0 for
 * none, the LFT's static port then), and whether AR is enabled (null keeps the setting); and for
 * source routing on a torus, the port of each direction (+X +Y +Z +K -X -Y -Z -K; 0 where the
 * switch has none; an empty array turns source routing off, null keeps the setting); and the input
 * ports whose packets follow the static LFT even with AR on (null keeps the setting); and the
 * switch's Dragonfly routing (null keeps it; empty turns it off; a routing other than the one
 * installed replaces it, and with it the Q-table the switch learns from, which starts again from
 * its seed; the same routing again changes nothing, unless {@code restartLearning}: then a
 * Q-adaptive switch starts learning again from the seed of the routing in force after the batch,
 * whichever it is). With {@code replace} the batch is the whole
 * tables: what it leaves out is what a fresh switch holds, and it may move the version down (a
 * manager taking back a switch someone else wrote, or one at the version ceiling). Versions are
 * unsigned ({@link Long#compareUnsigned}). Build one with
 * {@link #builder(long, long)}: the record is long and most writes leave most of it alone.
 */
public record TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl,
                         List<ArGroup> arGroups, List<ArBlock> arBlocks, Boolean arEnabled, int[] directionPorts,
                         int[] arStaticInputs, boolean replace, Optional<DragonflySwitch> dragonfly, boolean restartLearning) {
    /** Changing what it names, keeping the rest (the Dragonfly routing too). */
    public TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl,
                      List<ArGroup> arGroups, List<ArBlock> arBlocks, Boolean arEnabled, int[] directionPorts,
                      int[] arStaticInputs) {
        this(fromVersion, toVersion, blocks, lftTop, sl2vl, arGroups, arBlocks, arEnabled, directionPorts, arStaticInputs, false, null,
                false);
    }

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

    /** A builder of the batch moving tables from version {@code fromVersion} to {@code toVersion}, changing nothing yet. */
    public static Builder builder(long fromVersion, long toVersion) {
        return new Builder(fromVersion, toVersion);
    }

    /** Collects a batch's changes; what is never set is left as the switch holds it. Not thread-safe. */
    public static final class Builder {
        private final long fromVersion;
        private final long toVersion;
        private final List<Block> blocks = new ArrayList<>();
        private int lftTop;
        private final List<Sl2Vl> sl2vl = new ArrayList<>();
        private final List<ArGroup> arGroups = new ArrayList<>();
        private final List<ArBlock> arBlocks = new ArrayList<>();
        private Boolean arEnabled;
        private int[] directionPorts;
        private int[] arStaticInputs;
        private Optional<DragonflySwitch> dragonfly;
        private boolean replace;
        private boolean restartLearning;

        private Builder(long fromVersion, long toVersion) {
            this.fromVersion = fromVersion;
            this.toVersion = toVersion;
        }

        /** Replaces LFT block {@code block} with {@code ports} (64 entries). */
        public Builder block(int block, byte[] ports) {
            blocks.add(new Block(block, ports));
            return this;
        }

        /** Sets the LFT top (0 keeps it). */
        public Builder lftTop(int top) {
            lftTop = top;
            return this;
        }

        /** Replaces the SL-to-VL map of a port pair (0: every port), after the maps added before it. */
        public Builder sl2vl(int inputPort, int outputPort, byte[] vl) {
            sl2vl.add(new Sl2Vl(inputPort, outputPort, vl));
            return this;
        }

        /** Defines AR group {@code group} (no ports deletes it). */
        public Builder arGroup(int group, int[] ports, int[] detours) {
            arGroups.add(new ArGroup(group, ports, detours));
            return this;
        }

        /** Replaces AR LFT block {@code block} (64 entries). */
        public Builder arBlock(int block, short[] groups) {
            arBlocks.add(new ArBlock(block, groups));
            return this;
        }

        public Builder arEnabled(boolean on) {
            arEnabled = on;
            return this;
        }

        /** Sets the torus direction ports (empty: source routing off). */
        public Builder directionPorts(int[] ports) {
            directionPorts = ports;
            return this;
        }

        /** Sets the input ports that keep to the static LFT with AR on. */
        public Builder arStaticInputs(int[] ports) {
            arStaticInputs = ports;
            return this;
        }

        /** Sets the switch's Dragonfly routing (null: none, routing by the LFT again). */
        public Builder dragonfly(DragonflySwitch d) {
            dragonfly = Optional.ofNullable(d);
            return this;
        }

        /** Makes the batch the whole tables: what it does not set is what a fresh switch holds. */
        public Builder replace(boolean whole) {
            replace = whole;
            return this;
        }

        /** Makes a Q-adaptive switch start learning again from its routing's seed, even if the routing stays the same. */
        public Builder restartLearning(boolean restart) {
            restartLearning = restart;
            return this;
        }

        public TableBatch build() {
            return new TableBatch(fromVersion, toVersion, blocks, lftTop, sl2vl, arGroups, arBlocks, arEnabled, directionPorts,
                    arStaticInputs, replace, dragonfly, restartLearning);
        }
    }
}
