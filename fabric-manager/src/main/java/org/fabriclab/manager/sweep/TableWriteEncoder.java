package org.fabriclab.manager.sweep;

import com.google.protobuf.ByteString;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.ArLftBlock;
import org.fabriclab.proto.v1.DirectionPorts;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.PortSet;
import org.fabriclab.proto.v1.Sl2VlTable;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.engine.SwitchInstall;

/**
 * The parts of a {@link SwitchInstall} as the management contract's table write carries them: the
 * exact inverse of the switch agent's {@code TableWriteDecoder}, field for field, so that what the
 * daemon pushes is what the simulator installs (a test holds the switches' tables equal for every
 * engine). It lives here, not in the switch agent, because the daemon must not depend on the
 * agent; both map from the same install model in routing-engines. Which parts go into a write
 * (only what changed) is {@link TablePush}'s decision.
 */
final class TableWriteEncoder {
    private TableWriteEncoder() {
    }

    /** LFT block {@code b} of {@code in}. */
    static void lftBlock(WriteTablesRequest.Builder w, SwitchInstall in, int b) {
        w.addLftBlocks(LftBlock.newBuilder().setBlock(b).setPorts(ByteString.copyFrom(in.lftBlock(b))));
    }

    /** Every SL-to-VL map of {@code in}, in order: the default for every port pair first, so older maps are overwritten. */
    static void lanes(WriteTablesRequest.Builder w, SwitchInstall in) {
        for (SwitchInstall.LaneMap m : in.sl2vl()) {
            w.addSl2Vl(Sl2VlTable.newBuilder().setInputPort(m.inputPort()).setOutputPort(m.outputPort())
                    .setVl(ByteString.copyFrom(m.vl())));
        }
    }

    /**
     * The whole AR state of {@code in}: every group (and deletes for the higher numbers the switch
     * had, {@code groupsBefore}), every AR LFT block (zeros clear what a previous engine set),
     * whether AR is on, and the static input ports.
     */
    static void ar(WriteTablesRequest.Builder w, SwitchInstall in, int groupsBefore) {
        int[][] groups = in.arGroups();
        for (int g = 1; g <= Math.max(groups.length, groupsBefore); g++) {
            ArGroup.Builder b = ArGroup.newBuilder().setGroup(g);
            if (g <= groups.length) {
                for (int p : groups[g - 1]) {
                    b.addPorts(p);
                }
                for (int p : in.arDetours()[g - 1]) {
                    b.addDetourPorts(p);
                }
            }
            w.addArGroups(b);
        }
        for (int blk = 0; blk < in.blocks(); blk++) {
            ArLftBlock.Builder b = ArLftBlock.newBuilder().setBlock(blk);
            for (short g : in.arBlock(blk)) {
                b.addGroups(g);
            }
            w.addArLftBlocks(b);
        }
        w.setArEnabled(in.arEnabled());
        PortSet.Builder inputs = PortSet.newBuilder();
        for (int p : in.arStaticInputs()) {
            inputs.addPorts(p);
        }
        w.setArStaticInputPorts(inputs);
    }

    /** The Dragonfly routing of {@code in} (algorithm NONE: off, the switch routes by its LFT). */
    static void dragonfly(WriteTablesRequest.Builder w, SwitchInstall in) {
        w.setDragonfly(DragonflyWire.encode(in.dragonfly()));
    }

    /**
     * All of {@code in} as a replacing write ({@code replace}): every LFT block, the SL-to-VL maps,
     * the AR state when it has one (a fresh switch's is none), the direction ports, the Dragonfly routing
     * when it has one (the same routing as the switch holds leaves what it learnt alone).
     */
    static void whole(WriteTablesRequest.Builder w, SwitchInstall in) {
        w.setReplace(true).setLftTop(in.lftTop());
        for (int b = 0; b < in.blocks(); b++) {
            lftBlock(w, in, b);
        }
        lanes(w, in);
        if (in.arEnabled() || in.arGroups().length > 0 || in.arStaticInputs().length > 0) {
            ar(w, in, 0);
        }
        directions(w, in);
        if (in.dragonfly() != null) {
            dragonfly(w, in);
        }
    }

    /** The torus direction ports of {@code in} (none: source routing off). */
    static void directions(WriteTablesRequest.Builder w, SwitchInstall in) {
        DirectionPorts.Builder b = DirectionPorts.newBuilder();
        for (int p : in.directionPorts()) {
            b.addPorts(p);
        }
        w.setDirectionPorts(b);
    }
}
