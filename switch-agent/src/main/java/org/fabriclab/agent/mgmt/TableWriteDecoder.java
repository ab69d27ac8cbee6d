package org.fabriclab.agent.mgmt;

import java.util.List;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.ArLftBlock;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.Sl2VlTable;
import org.fabriclab.proto.v1.WriteTablesRequest;

/**
 * The management contract's table write as the switch core's {@link TableBatch}: field for field,
 * nothing checked here (the {@code TableStore} checks the batch against the switch, all or
 * nothing). An optional field left unset keeps the switch's setting (null in the batch). The
 * daemon's {@code TableWriteEncoder} is the exact inverse, from the same install model; a test
 * holds a decoded encoding equal to what the simulator installs.
 */
public final class TableWriteDecoder {
    private TableWriteDecoder() {
    }

    /** @throws TableWriteException where a part cannot even be read as what it claims (a malformed Dragonfly routing) */
    public static TableBatch decode(WriteTablesRequest request) throws TableWriteException {
        TableBatch.Builder b = TableBatch.builder(request.getFromVersion(), request.getToVersion()).lftTop(request.getLftTop())
                .replace(request.getReplace()).restartLearning(request.getRestartLearning());
        for (LftBlock block : request.getLftBlocksList()) {
            b.block(block.getBlock(), block.getPorts().toByteArray());
        }
        for (Sl2VlTable t : request.getSl2VlList()) {
            b.sl2vl(t.getInputPort(), t.getOutputPort(), t.getVl().toByteArray());
        }
        for (ArGroup g : request.getArGroupsList()) {
            b.arGroup(g.getGroup(), ints(g.getPortsList()), ints(g.getDetourPortsList()));
        }
        for (ArLftBlock block : request.getArLftBlocksList()) {
            short[] entries = new short[block.getGroupsCount()];
            for (int i = 0; i < entries.length; i++) {
                int g = block.getGroups(i);
                // out of range stays out of range (negative), for the check to name it; a uint32 of
                // 2^31 or more arrives negative and must not be truncated to a valid group
                entries[i] = g < 0 || g > SwitchTables.MAX_AR_GROUPS ? -1 : (short) g;
            }
            b.arBlock(block.getBlock(), entries);
        }
        if (request.hasArEnabled()) {
            b.arEnabled(request.getArEnabled());
        }
        if (request.hasDirectionPorts()) {
            b.directionPorts(ints(request.getDirectionPorts().getPortsList()));
        }
        if (request.hasArStaticInputPorts()) {
            b.arStaticInputs(ints(request.getArStaticInputPorts().getPortsList()));
        }
        if (request.hasDragonfly()) {
            b.dragonfly(DragonflyWire.decode(request.getDragonfly()));
        }
        return b.build();
    }

    static int[] ints(List<Integer> list) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }
}
