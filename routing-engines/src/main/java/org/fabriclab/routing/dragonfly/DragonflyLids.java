package org.fabriclab.routing.dragonfly;

import java.util.Arrays;

/**
 * Where every LID of a Dragonfly is: its group, its router's index in the group and, for a host,
 * its slot on the router: what a router needs of a packet's destination and source to route it
 * and to find its Q-table row. One {@code int} per LID (group in bits 16-31, router 8-15, slot
 * 0-7; -1 for a LID not in use); immutable, shared by every switch of a simulation, pushed whole to
 * each live switch.
 */
public final class DragonflyLids {
    private final int[] entry;

    private DragonflyLids(int[] entry) {
        this.entry = entry;
    }

    /** Per LID ({@code 0..size-1}), the packed entry or -1; the array is copied. */
    public static DragonflyLids of(int[] entries) {
        for (int lid = 0; lid < entries.length; lid++) {
            int e = entries[lid];
            if (e != -1 && (e < 0 || group(e) >= DragonflyHeader.MAX_GROUPS || router(e) >= DragonflyHeader.MAX_ROUTERS)) {
                throw new IllegalArgumentException("LID " + lid + ": entry 0x" + Integer.toHexString(e) + " names no group and router");
            }
        }
        return new DragonflyLids(entries.clone());
    }

    /** An entry: group, router index and host slot (0 for a switch's own LID). */
    public static int pack(int group, int router, int slot) {
        if (group < 0 || group >= DragonflyHeader.MAX_GROUPS || router < 0 || router >= DragonflyHeader.MAX_ROUTERS || slot < 0 || slot > 255) {
            throw new IllegalArgumentException("group " + group + ", router " + router + ", slot " + slot + " out of range");
        }
        return group << 16 | router << 8 | slot;
    }

    /** Number of LIDs described. */
    public int size() {
        return entry.length;
    }

    /** LID {@code lid}'s packed entry, or -1 if the LID is unknown. Hot path. */
    public int entry(int lid) {
        return lid >= 0 && lid < entry.length ? entry[lid] : -1;
    }

    public static int group(int entry) {
        return entry >>> 16;
    }

    public static int router(int entry) {
        return (entry >>> 8) & 0xFF;
    }

    public static int slot(int entry) {
        return entry & 0xFF;
    }

    /** A copy of every entry. */
    public int[] entries() {
        return entry.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DragonflyLids l && Arrays.equals(l.entry, entry);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(entry);
    }
}
