package org.fabriclab.agent.core;

import java.util.List;

/**
 * One versioned batch of table changes, as the manager sends it: the version it moves from and
 * to, LFT blocks to replace, a new LFT top (0 keeps it) and SL-to-VL tables to replace.
 */
public record TableBatch(long fromVersion, long toVersion, List<Block> blocks, int lftTop, List<Sl2Vl> sl2vl) {
    /** 64 entries of LFT block {@code block}. */
    public record Block(int block, byte[] ports) {
    }

    /** SL-to-VL map for an input/output port pair; 0 means every port. */
    public record Sl2Vl(int inputPort, int outputPort, byte[] vl) {
    }

    public TableBatch {
        blocks = List.copyOf(blocks);
        sl2vl = List.copyOf(sl2vl);
    }
}
