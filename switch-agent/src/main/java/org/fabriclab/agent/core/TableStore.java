package org.fabriclab.agent.core;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.fabriclab.routing.dragonfly.DragonflySwitch;

/**
 * Holds a switch's current {@link SwitchTables} and applies batches all-or-nothing: every change
 * is checked against the switch (ports, capacity, block size, version) before anything is built;
 * the new snapshot is built as a shadow copy and published by one volatile write. A refused batch
 * leaves the current snapshot untouched, so readers never see a mix of old and new.
 *
 * <p>Thread-safety: readers call {@link #current()} from any thread without locking; writers are
 * serialised by the store's monitor (writes are rare, management-plane operations).
 */
public final class TableStore {
    private volatile SwitchTables current;

    public TableStore(int ports) {
        current = SwitchTables.empty(ports);
    }

    /** Called after every write that installs new tables (on the writer's thread: it should only hand the news on). */
    private volatile Runnable onChange = () -> { };

    /** Sets what to call after a write installs new tables (the data plane re-routes its waiting packets). */
    public void onChange(Runnable r) {
        onChange = r;
    }

    /** The installed tables; one volatile read. */
    public SwitchTables current() {
        return current;
    }

    /**
     * Applies a batch.
     *
     * @return how many LFT and AR LFT blocks actually changed
     * @throws TableWriteException with the first problem found, naming the entry; nothing changed
     */
    public synchronized int apply(TableBatch batch) throws TableWriteException {
        SwitchTables old = current;
        validate(old, batch);
        int maxBlock = old.allocated() / SwitchTables.BLOCK - 1;
        for (TableBatch.Block b : batch.blocks()) {
            maxBlock = Math.max(maxBlock, b.block());
        }
        byte[] lft = Arrays.copyOf(old.lftArray(), (maxBlock + 1) * SwitchTables.BLOCK);
        Arrays.fill(lft, old.allocated(), lft.length, (byte) SwitchTables.NO_ROUTE);
        int changed = 0;
        for (TableBatch.Block b : batch.blocks()) {
            int from = b.block() * SwitchTables.BLOCK;
            if (!Arrays.equals(lft, from, from + SwitchTables.BLOCK, b.ports(), 0, SwitchTables.BLOCK)) {
                System.arraycopy(b.ports(), 0, lft, from, SwitchTables.BLOCK);
                changed++;
            }
        }
        int ports = old.portCount();
        byte[] sl2vl = old.sl2vlArray().clone();
        for (TableBatch.Sl2Vl t : batch.sl2vl()) {
            for (int in = 0; in <= ports; in++) {
                for (int out = 0; out <= ports; out++) {
                    if ((t.inputPort() == 0 || t.inputPort() == in) && (t.outputPort() == 0 || t.outputPort() == out)) {
                        System.arraycopy(t.vl(), 0, sl2vl, ((in * (ports + 1)) + out) * SwitchTables.SERVICE_LEVELS,
                                SwitchTables.SERVICE_LEVELS);
                    }
                }
            }
        }
        int top = batch.lftTop() != 0 ? batch.lftTop() : old.lftTop();
        // adaptive routing: groups first, then the AR LFT, then every AR entry must name a group
        int[][] groups = old.arGroupsArray();
        int[][] detours = old.arDetoursArray();
        if (!batch.arGroups().isEmpty()) {
            int size = groups.length;
            for (TableBatch.ArGroup g : batch.arGroups()) {
                size = Math.max(size, g.group() + 1);
            }
            groups = Arrays.copyOf(groups, size);
            detours = Arrays.copyOf(detours, size);
            for (TableBatch.ArGroup g : batch.arGroups()) {
                groups[g.group()] = g.ports().length == 0 ? null : g.ports().clone();
                detours[g.group()] = g.ports().length == 0 || g.detours().length == 0 ? null : g.detours().clone();
            }
        }
        short[] arLft = Arrays.copyOf(old.arLftArray(), lft.length);
        for (TableBatch.ArBlock b : batch.arBlocks()) {
            int from = b.block() * SwitchTables.BLOCK;
            if (!Arrays.equals(arLft, from, from + SwitchTables.BLOCK, b.groups(), 0, SwitchTables.BLOCK)) {
                System.arraycopy(b.groups(), 0, arLft, from, SwitchTables.BLOCK);
                changed++;
            }
        }
        for (int lid = 0; lid < arLft.length; lid++) {
            int g = arLft[lid];
            if (g != 0 && (g >= groups.length || groups[g] == null)) {
                throw invalid("the AR LFT sends LID " + lid + " to AR group " + g + ", which is not defined after this batch"
                        + " (define it in ar_groups, or set the entry to 0)");
            }
        }
        boolean ar = batch.arEnabled() != null ? batch.arEnabled() : old.arEnabled();
        int[] directions = batch.directionPorts() != null ? batch.directionPorts() : old.directionPorts();
        int[] staticInputs = batch.arStaticInputs() != null ? batch.arStaticInputs() : old.arStaticInputs();
        DragonflySwitch dragonfly = batch.dragonfly() != null ? batch.dragonfly().orElse(null) : old.dragonfly();
        current = new SwitchTables(batch.toVersion(), lft, top, ports, sl2vl, arLft, groups, detours, ar, directions, staticInputs,
                dragonfly);
        onChange.run();
        return changed;
    }

    private static int maxLftBlock(TableBatch batch) {
        int max = -1;
        for (TableBatch.Block b : batch.blocks()) {
            max = Math.max(max, b.block());
        }
        return max;
    }

    private static void validate(SwitchTables old, TableBatch batch) throws TableWriteException {
        if (batch.fromVersion() != old.version()) {
            throw new TableWriteException(TableWriteException.Reason.STALE_VERSION, "the batch moves tables from version "
                    + batch.fromVersion() + " but the switch holds version " + old.version()
                    + "; read SwitchInfo and compute the change again");
        }
        if (batch.toVersion() <= batch.fromVersion()) {
            throw invalid("to_version " + batch.toVersion() + " must be greater than from_version " + batch.fromVersion());
        }
        if (batch.lftTop() < 0 || batch.lftTop() >= SwitchTables.CAPACITY) {
            throw invalid("lft_top " + batch.lftTop() + " is beyond the LFT capacity (LIDs 0.." + (SwitchTables.CAPACITY - 1) + ")");
        }
        int ports = old.portCount();
        Set<Integer> seen = new HashSet<>();
        for (int k = 0; k < batch.blocks().size(); k++) {
            TableBatch.Block b = batch.blocks().get(k);
            String where = "lft_blocks[" + k + "] (block " + b.block() + ")";
            if (b.block() < 0 || b.block() >= SwitchTables.CAPACITY / SwitchTables.BLOCK) {
                throw invalid(where + ": block is beyond the LFT capacity of " + SwitchTables.CAPACITY / SwitchTables.BLOCK
                        + " blocks (LIDs 0.." + (SwitchTables.CAPACITY - 1) + ")");
            }
            if (!seen.add(b.block())) {
                throw invalid(where + ": block appears twice in the batch");
            }
            if (b.ports() == null || b.ports().length != SwitchTables.BLOCK) {
                throw invalid(where + ": a block has exactly " + SwitchTables.BLOCK + " entries, not "
                        + (b.ports() == null ? 0 : b.ports().length));
            }
            for (int i = 0; i < SwitchTables.BLOCK; i++) {
                int p = b.ports()[i] & 0xFF;
                if (p != SwitchTables.NO_ROUTE && p > ports) {
                    throw invalid(where + ": entry " + i + " (LID " + (b.block() * SwitchTables.BLOCK + i) + ") names port "
                            + p + " but the switch has ports 0.." + ports + " (255 for no route)");
                }
            }
        }
        if (batch.dragonfly() != null && batch.dragonfly().isPresent() && !batch.dragonfly().get().fits(ports)) {
            throw invalid("dragonfly: the routing describes " + batch.dragonfly().get().ports() + " ports, but the switch has " + ports);
        }
        int[] dirs = batch.directionPorts();
        if (dirs != null) {
            if (dirs.length > 8) {
                throw invalid("direction_ports: a torus has at most 8 directions (4 dimensions), not " + dirs.length);
            }
            Set<Integer> dirPorts = new HashSet<>();
            for (int d = 0; d < dirs.length; d++) {
                if (dirs[d] < 0 || dirs[d] > ports) {
                    throw invalid("direction_ports[" + d + "]: port " + dirs[d] + " is not one of the switch's ports 1.." + ports + " (0 for none)");
                }
                if (dirs[d] != 0 && !dirPorts.add(dirs[d])) {
                    throw invalid("direction_ports[" + d + "]: port " + dirs[d] + " already leads in another direction");
                }
            }
        }
        Set<Integer> groupsSeen = new HashSet<>();
        for (int k = 0; k < batch.arGroups().size(); k++) {
            TableBatch.ArGroup g = batch.arGroups().get(k);
            String where = "ar_groups[" + k + "] (group " + g.group() + ")";
            if (g.group() < 1 || g.group() > SwitchTables.MAX_AR_GROUPS) {
                throw invalid(where + ": AR groups are numbered 1.." + SwitchTables.MAX_AR_GROUPS);
            }
            if (!groupsSeen.add(g.group())) {
                throw invalid(where + ": group appears twice in the batch");
            }
            Set<Integer> members = new HashSet<>();
            for (int p : g.ports()) {
                if (p < 1 || p > ports) {
                    throw invalid(where + ": port " + p + " is not one of the switch's ports 1.." + ports);
                }
                if (!members.add(p)) {
                    throw invalid(where + ": port " + p + " appears twice in the group");
                }
            }
            Set<Integer> detourSeen = new HashSet<>();
            for (int p : g.detours()) {
                if (!members.contains(p)) {
                    throw invalid(where + ": detour port " + p + " is not one of the group's ports " + Arrays.toString(g.ports()));
                }
                if (!detourSeen.add(p)) {
                    throw invalid(where + ": detour port " + p + " appears twice");
                }
            }
            if (g.detours().length > 0 && g.detours().length == g.ports().length) {
                throw invalid(where + ": every port is a detour; a group needs at least one minimal port");
            }
        }
        int[] staticInputs = batch.arStaticInputs();
        if (staticInputs != null) {
            Set<Integer> seenInputs = new HashSet<>();
            for (int k = 0; k < staticInputs.length; k++) {
                if (staticInputs[k] < 1 || staticInputs[k] > ports) {
                    throw invalid("ar_static_input_ports[" + k + "]: port " + staticInputs[k] + " is not one of the switch's ports 1.." + ports);
                }
                if (!seenInputs.add(staticInputs[k])) {
                    throw invalid("ar_static_input_ports[" + k + "]: port " + staticInputs[k] + " appears twice");
                }
            }
        }
        Set<Integer> arSeen = new HashSet<>();
        for (int k = 0; k < batch.arBlocks().size(); k++) {
            TableBatch.ArBlock b = batch.arBlocks().get(k);
            String where = "ar_lft_blocks[" + k + "] (block " + b.block() + ")";
            if (b.block() < 0 || b.block() >= SwitchTables.CAPACITY / SwitchTables.BLOCK) {
                throw invalid(where + ": block is beyond the LFT capacity of " + SwitchTables.CAPACITY / SwitchTables.BLOCK + " blocks");
            }
            if (!arSeen.add(b.block())) {
                throw invalid(where + ": block appears twice in the batch");
            }
            if (b.groups() == null || b.groups().length != SwitchTables.BLOCK) {
                throw invalid(where + ": a block has exactly " + SwitchTables.BLOCK + " entries");
            }
            if (b.block() * SwitchTables.BLOCK >= Math.max(old.allocated(), maxLftBlock(batch) * SwitchTables.BLOCK + SwitchTables.BLOCK)) {
                throw invalid(where + ": the LFT has no block " + b.block() + " (AR entries need the static entry beside them)");
            }
            for (int i = 0; i < SwitchTables.BLOCK; i++) {
                if (b.groups()[i] < 0 || b.groups()[i] > SwitchTables.MAX_AR_GROUPS) {
                    throw invalid(where + ": entry " + i + " (LID " + (b.block() * SwitchTables.BLOCK + i) + ") names AR group "
                            + b.groups()[i] + "; groups are 1.." + SwitchTables.MAX_AR_GROUPS + ", 0 for none");
                }
            }
        }
        for (int k = 0; k < batch.sl2vl().size(); k++) {
            TableBatch.Sl2Vl t = batch.sl2vl().get(k);
            String where = "sl2vl[" + k + "]";
            if (t.inputPort() < 0 || t.inputPort() > ports || t.outputPort() < 0 || t.outputPort() > ports) {
                throw invalid(where + ": ports " + t.inputPort() + " -> " + t.outputPort() + " outside 0.." + ports);
            }
            if (t.vl() == null || t.vl().length != SwitchTables.SERVICE_LEVELS) {
                throw invalid(where + ": needs " + SwitchTables.SERVICE_LEVELS + " VL entries, one per SL");
            }
            for (int sl = 0; sl < SwitchTables.SERVICE_LEVELS; sl++) {
                if (t.vl()[sl] < 0 || t.vl()[sl] > 14) {
                    throw invalid(where + ": SL " + sl + " maps to VL " + t.vl()[sl] + "; data VLs are 0..14");
                }
            }
        }
    }

    private static TableWriteException invalid(String message) {
        return new TableWriteException(TableWriteException.Reason.INVALID, message);
    }
}
