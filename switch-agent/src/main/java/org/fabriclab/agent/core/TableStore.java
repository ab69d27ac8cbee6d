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
     * Applies a batch: on top of the installed tables, or, for a {@code replace} batch, on top of
     * a fresh switch's.
     *
     * @return how many LFT and AR LFT blocks differ from those installed before
     * @throws TableWriteException with the first problem found, naming the entry; nothing changed
     */
    public synchronized int apply(TableBatch batch) throws TableWriteException {
        SwitchTables old = current;
        SwitchTables base = batch.replace() ? SwitchTables.empty(old.portCount()) : old;
        validate(old, base, batch);
        int maxBlock = base.allocated() / SwitchTables.BLOCK - 1;
        for (TableBatch.Block b : batch.blocks()) {
            maxBlock = Math.max(maxBlock, b.block());
        }
        byte[] lft = Arrays.copyOf(base.lftArray(), (maxBlock + 1) * SwitchTables.BLOCK);
        Arrays.fill(lft, base.allocated(), lft.length, (byte) SwitchTables.NO_ROUTE);
        for (TableBatch.Block b : batch.blocks()) {
            System.arraycopy(b.ports(), 0, lft, b.block() * SwitchTables.BLOCK, SwitchTables.BLOCK);
        }
        int ports = old.portCount();
        byte[] sl2vl = base.sl2vlArray().clone();
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
        int top = batch.lftTop() != 0 ? batch.lftTop() : base.lftTop();
        // adaptive routing: groups first, then the AR LFT, then every AR entry must name a group
        int[][] groups = base.arGroupsArray();
        int[][] detours = base.arDetoursArray();
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
        short[] arLft = Arrays.copyOf(base.arLftArray(), lft.length);
        for (TableBatch.ArBlock b : batch.arBlocks()) {
            System.arraycopy(b.groups(), 0, arLft, b.block() * SwitchTables.BLOCK, SwitchTables.BLOCK);
        }
        for (int lid = 0; lid < arLft.length; lid++) {
            int g = arLft[lid];
            if (g != 0 && (g >= groups.length || groups[g] == null)) {
                throw invalid("the AR LFT sends LID " + lid + " to AR group " + g + ", which is not defined after this batch"
                        + " (define it in ar_groups, or set the entry to 0)");
            }
        }
        boolean ar = batch.arEnabled() != null ? batch.arEnabled() : base.arEnabled();
        int[] directions = batch.directionPorts() != null ? batch.directionPorts() : base.directionPorts();
        int[] staticInputs = batch.arStaticInputs() != null ? batch.arStaticInputs() : base.arStaticInputs();
        DragonflySwitch dragonfly = batch.dragonfly() != null ? batch.dragonfly().orElse(null) : base.dragonfly();
        if (dragonfly != null && batch.restartLearning()) {
            // another instance of the same routing: the core, which takes up a routing when the
            // instance changes, starts its Q-table and random choices again from the seed
            dragonfly = dragonfly.withQSeed(dragonfly.qSeed());
        } else if (dragonfly != null && dragonfly.equals(old.dragonfly())) {
            dragonfly = old.dragonfly(); // the same routing written again: a learning switch keeps its Q-table
        }
        SwitchTables next = new SwitchTables(batch.toVersion(), lft, top, ports, sl2vl, arLft, groups, detours, ar, directions, staticInputs,
                dragonfly);
        int changed = changedBlocks(old, next);
        current = next;
        onChange.run();
        return changed;
    }

    /** LFT and AR LFT blocks that differ between two snapshots (entries past an array's end: no route, no group). */
    private static int changedBlocks(SwitchTables a, SwitchTables b) {
        int blocks = Math.max(a.allocated(), b.allocated()) / SwitchTables.BLOCK;
        int changed = 0;
        for (int n = 0; n < blocks; n++) {
            changed += (Arrays.equals(a.block(n), b.block(n)) ? 0 : 1) + (Arrays.equals(a.arBlock(n), b.arBlock(n)) ? 0 : 1);
        }
        return changed;
    }

    private static int maxLftBlock(TableBatch batch) {
        int max = -1;
        for (TableBatch.Block b : batch.blocks()) {
            max = Math.max(max, b.block());
        }
        return max;
    }

    /**
     * Checks a batch against the installed tables ({@code old}: its version) and the tables it
     * builds on ({@code base}: the installed ones, or a fresh switch's for a replacing batch).
     * Every number of the batch came from an unsigned field: a negative int or long here is a
     * value of 2^31 (2^63) or more, and is named as such.
     */
    private static void validate(SwitchTables old, SwitchTables base, TableBatch batch) throws TableWriteException {
        if (batch.fromVersion() != old.version()) {
            throw new TableWriteException(TableWriteException.Reason.STALE_VERSION, "the batch moves tables from version "
                    + Long.toUnsignedString(batch.fromVersion()) + " but the switch holds version " + old.version()
                    + "; read SwitchInfo and compute the change again");
        }
        if (Long.compareUnsigned(batch.toVersion(), SwitchTables.MAX_VERSION) > 0) {
            throw new TableWriteException(TableWriteException.Reason.VERSION_CEILING, "to_version "
                    + Long.toUnsignedString(batch.toVersion()) + " is above the ceiling of table versions, " + SwitchTables.MAX_VERSION
                    + " (2^53-1)");
        }
        if (batch.replace() ? batch.toVersion() == batch.fromVersion() || batch.toVersion() == 0
                : Long.compareUnsigned(batch.toVersion(), batch.fromVersion()) <= 0) {
            throw invalid("to_version " + Long.toUnsignedString(batch.toVersion()) + (batch.replace()
                    ? " must be 1.." + SwitchTables.MAX_VERSION + " and differ from from_version " + batch.fromVersion()
                    : " must be greater than from_version " + batch.fromVersion() + " (or the write must replace the tables whole)"));
        }
        if (batch.lftTop() < 0 || batch.lftTop() >= SwitchTables.CAPACITY) {
            throw invalid("lft_top " + u(batch.lftTop()) + " is beyond the LFT capacity (LIDs 0.." + (SwitchTables.CAPACITY - 1) + ")");
        }
        int ports = old.portCount();
        Set<Integer> seen = new HashSet<>();
        for (int k = 0; k < batch.blocks().size(); k++) {
            TableBatch.Block b = batch.blocks().get(k);
            String where = "lft_blocks[" + k + "] (block " + u(b.block()) + ")";
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
                    throw invalid("direction_ports[" + d + "]: port " + u(dirs[d]) + " is not one of the switch's ports 1.." + ports + " (0 for none)");
                }
                if (dirs[d] != 0 && !dirPorts.add(dirs[d])) {
                    throw invalid("direction_ports[" + d + "]: port " + dirs[d] + " already leads in another direction");
                }
            }
        }
        Set<Integer> groupsSeen = new HashSet<>();
        for (int k = 0; k < batch.arGroups().size(); k++) {
            TableBatch.ArGroup g = batch.arGroups().get(k);
            String where = "ar_groups[" + k + "] (group " + u(g.group()) + ")";
            if (g.group() < 1 || g.group() > SwitchTables.MAX_AR_GROUPS) {
                throw invalid(where + ": AR groups are numbered 1.." + SwitchTables.MAX_AR_GROUPS);
            }
            if (!groupsSeen.add(g.group())) {
                throw invalid(where + ": group appears twice in the batch");
            }
            Set<Integer> members = new HashSet<>();
            for (int p : g.ports()) {
                if (p < 1 || p > ports) {
                    throw invalid(where + ": port " + u(p) + " is not one of the switch's ports 1.." + ports);
                }
                if (!members.add(p)) {
                    throw invalid(where + ": port " + p + " appears twice in the group");
                }
            }
            Set<Integer> detourSeen = new HashSet<>();
            for (int p : g.detours()) {
                if (!members.contains(p)) {
                    throw invalid(where + ": detour port " + u(p) + " is not one of the group's ports " + Arrays.toString(g.ports()));
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
                    throw invalid("ar_static_input_ports[" + k + "]: port " + u(staticInputs[k]) + " is not one of the switch's ports 1.." + ports);
                }
                if (!seenInputs.add(staticInputs[k])) {
                    throw invalid("ar_static_input_ports[" + k + "]: port " + staticInputs[k] + " appears twice");
                }
            }
        }
        Set<Integer> arSeen = new HashSet<>();
        for (int k = 0; k < batch.arBlocks().size(); k++) {
            TableBatch.ArBlock b = batch.arBlocks().get(k);
            String where = "ar_lft_blocks[" + k + "] (block " + u(b.block()) + ")";
            if (b.block() < 0 || b.block() >= SwitchTables.CAPACITY / SwitchTables.BLOCK) {
                throw invalid(where + ": block is beyond the LFT capacity of " + SwitchTables.CAPACITY / SwitchTables.BLOCK + " blocks");
            }
            if (!arSeen.add(b.block())) {
                throw invalid(where + ": block appears twice in the batch");
            }
            if (b.groups() == null || b.groups().length != SwitchTables.BLOCK) {
                throw invalid(where + ": a block has exactly " + SwitchTables.BLOCK + " entries");
            }
            if (b.block() * SwitchTables.BLOCK >= Math.max(base.allocated(), maxLftBlock(batch) * SwitchTables.BLOCK + SwitchTables.BLOCK)) {
                throw invalid(where + ": the LFT has no block " + b.block() + " (AR entries need the static entry beside them)");
            }
            for (int i = 0; i < SwitchTables.BLOCK; i++) {
                if (b.groups()[i] < 0 || b.groups()[i] > SwitchTables.MAX_AR_GROUPS) {
                    throw invalid(where + ": entry " + i + " (LID " + (b.block() * SwitchTables.BLOCK + i) + ") names AR group "
                            + (b.groups()[i] < 0 ? "above " + SwitchTables.MAX_AR_GROUPS : b.groups()[i]) + "; groups are 1.."
                            + SwitchTables.MAX_AR_GROUPS + ", 0 for none");
                }
            }
        }
        for (int k = 0; k < batch.sl2vl().size(); k++) {
            TableBatch.Sl2Vl t = batch.sl2vl().get(k);
            String where = "sl2vl[" + k + "]";
            if (t.inputPort() < 0 || t.inputPort() > ports || t.outputPort() < 0 || t.outputPort() > ports) {
                throw invalid(where + ": ports " + u(t.inputPort()) + " -> " + u(t.outputPort()) + " outside 0.." + ports);
            }
            if (t.vl() == null || t.vl().length != SwitchTables.SERVICE_LEVELS) {
                throw invalid(where + ": needs " + SwitchTables.SERVICE_LEVELS + " VL entries, one per SL");
            }
            for (int sl = 0; sl < SwitchTables.SERVICE_LEVELS; sl++) {
                if (t.vl()[sl] < 0 || t.vl()[sl] > 14) {
                    throw invalid(where + ": SL " + sl + " maps to VL " + (t.vl()[sl] & 0xFF) + "; data VLs are 0..14");
                }
            }
        }
    }

    /** A uint32 field's value as the sender meant it. */
    private static String u(int v) {
        return Integer.toUnsignedString(v);
    }

    private static TableWriteException invalid(String message) {
        return new TableWriteException(TableWriteException.Reason.INVALID, message);
    }
}
