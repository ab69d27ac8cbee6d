package org.fabriclab.agent.core;

import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.SwitchInstall;

/**
 * A switch's whole tables as one batch, from the one mapping of an engine's tables to a switch
 * ({@link SwitchInstall}): how the simulator and the scenarios install tables without a manager.
 * The daemon's push writes the same state through the management contract (only what changed);
 * a test holds the two equal for every engine.
 */
public final class TableInstall {
    private TableInstall() {
    }

    /** Switch {@code s}'s tables as {@link SwitchInstall#of} maps them, as a batch from version 0 to 1 (a fresh switch). */
    public static TableBatch batch(ForwardingTables t, int s, int dataVls, boolean adaptive) {
        return batch(SwitchInstall.of(t, s, dataVls, adaptive), 0, 1);
    }

    /**
     * Everything {@code in} holds, as a batch from {@code fromVersion} to {@code toVersion}: every
     * LFT block, the LFT top, the SL-to-VL maps in order, every AR group, the AR LFT blocks that name
     * a group, AR on or off, the static input ports, the direction ports and the Dragonfly routing. Applied to a fresh
     * switch it leaves exactly {@code in}; AR LFT blocks of zeros are left out, as a fresh switch
     * holds them already.
     */
    public static TableBatch batch(SwitchInstall in, long fromVersion, long toVersion) {
        TableBatch.Builder b = TableBatch.builder(fromVersion, toVersion).lftTop(in.lftTop());
        for (int blk = 0; blk < in.blocks(); blk++) {
            b.block(blk, in.lftBlock(blk));
        }
        for (SwitchInstall.LaneMap m : in.sl2vl()) {
            b.sl2vl(m.inputPort(), m.outputPort(), m.vl());
        }
        for (int g = 1; g <= in.arGroups().length; g++) {
            b.arGroup(g, in.arGroups()[g - 1], in.arDetours()[g - 1]);
        }
        for (int blk = 0; blk < in.blocks(); blk++) {
            if (in.arBlockUsed(blk)) {
                b.arBlock(blk, in.arBlock(blk));
            }
        }
        return b.arEnabled(in.arEnabled()).arStaticInputs(in.arStaticInputs()).directionPorts(in.directionPorts())
                .dragonfly(in.dragonfly()).build();
    }
}
