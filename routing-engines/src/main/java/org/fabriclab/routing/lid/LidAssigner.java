package org.fabriclab.routing.lid;

import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;

/**
 * Assigns LIDs deterministically (LMC 0), keeping LIDs stable across runs as OpenSM does with its
 * {@code guid2lid} cache.
 *
 * <p>Order of precedence, each step skipping LIDs already taken:
 * <ol>
 *   <li>a LID the topology asks for ({@link Fabric#preferredLid}, e.g. a paper's numbering);
 *   <li>the LID {@code remembered} holds for the port GUID (a restart keeps its LIDs);
 *   <li>the LID the port holds now ({@code held}: what a running fabric's ports say), as OpenSM
 *       keeps a port's LID that its {@code guid2lid} does not name, so that a manager that lost
 *       or could not read its file renumbers nothing;
 *   <li>the lowest free LID, in node order (switches and CAs as the fabric lists them), passing
 *       over the LIDs remembered for ports not in the fabric now (a node that is down keeps its
 *       LID for when it comes back, as with OpenSM) unless no other LID is left.
 * </ol>
 */
public final class LidAssigner {
    private LidAssigner() {
    }

    /** Assigns LIDs with no remembered assignment. */
    public static LidAssignment assign(Fabric fabric) {
        return assign(fabric, Map.of());
    }

    /**
     * Assigns LIDs, keeping the ones {@code previous} holds for port GUIDs still in the fabric.
     *
     * @throws IllegalArgumentException if the fabric needs more than {@link LidAssignment#MAX_UNICAST_LID} LIDs
     */
    public static LidAssignment assign(Fabric fabric, Map<Long, Integer> previous) {
        return assign(fabric, previous, Map.of());
    }

    /**
     * Assigns LIDs: remembered ones first, then the ones the ports hold, then the lowest free (see
     * the class comment); both maps by port GUID (a switch's node GUID).
     *
     * @throws IllegalArgumentException if the fabric needs more than {@link LidAssignment#MAX_UNICAST_LID} LIDs
     */
    public static LidAssignment assign(Fabric fabric, Map<Long, Integer> remembered, Map<Long, Integer> held) {
        int needed = fabric.switchCount() + fabric.endpointCount();
        if (needed > LidAssignment.MAX_UNICAST_LID) {
            throw new IllegalArgumentException("the fabric has " + needed + " switches and CA ports but only "
                    + LidAssignment.MAX_UNICAST_LID + " unicast LIDs exist (LMC 0)");
        }
        int[] switchLid = new int[fabric.switchCount()];
        int[] endpointLid = new int[fabric.endpointCount()];
        boolean[] taken = new boolean[LidAssignment.MAX_UNICAST_LID + 1];

        for (int node = 0; node < fabric.nodeCount(); node++) {
            int want = fabric.preferredLid(node);
            if (want > 0 && want <= LidAssignment.MAX_UNICAST_LID && !taken[want]) {
                int slot = firstSlot(fabric, node);
                if (slot != Integer.MIN_VALUE) {
                    set(switchLid, endpointLid, slot, want);
                    taken[want] = true;
                }
            }
        }
        for (Map<Long, Integer> layer : List.of(remembered, held)) {
            for (int node = 0; node < fabric.nodeCount(); node++) {
                for (int slot : slots(fabric, node)) {
                    if (get(switchLid, endpointLid, slot) != 0) {
                        continue;
                    }
                    Integer old = layer.get(guidOfSlot(fabric, node, slot));
                    if (old != null && old > 0 && old <= LidAssignment.MAX_UNICAST_LID && !taken[old]) {
                        set(switchLid, endpointLid, slot, old);
                        taken[old] = true;
                    }
                }
            }
        }
        // the LIDs of remembered ports not in the fabric now are passed over while others are free
        boolean[] reserved = new boolean[LidAssignment.MAX_UNICAST_LID + 1];
        for (int lid : remembered.values()) {
            if (lid > 0 && lid <= LidAssignment.MAX_UNICAST_LID && !taken[lid]) {
                reserved[lid] = true;
            }
        }
        int next = 1;
        int fallback = 1;
        for (int node = 0; node < fabric.nodeCount(); node++) {
            for (int slot : slots(fabric, node)) {
                if (get(switchLid, endpointLid, slot) != 0) {
                    continue;
                }
                while (next <= LidAssignment.MAX_UNICAST_LID && (taken[next] || reserved[next])) {
                    next++;
                }
                int lid;
                if (next <= LidAssignment.MAX_UNICAST_LID) {
                    lid = next;
                } else { // every free LID is remembered for an absent port: the lowest of those goes
                    while (taken[fallback]) {
                        fallback++;
                    }
                    lid = fallback;
                }
                set(switchLid, endpointLid, slot, lid);
                taken[lid] = true;
            }
        }
        return new LidAssignment(switchLid, endpointLid);
    }

    // A slot is an endpoint number (>= 0) or -(switchIndex + 1).
    private static int[] slots(Fabric f, int node) {
        if (f.isSwitch(node)) {
            return new int[] {-(f.switchIndex(node) + 1)};
        }
        int count = 0;
        for (int p = 1; p <= f.portCount(node); p++) {
            if (f.endpointOfPort(f.globalPort(node, p)) != Fabric.NONE) {
                count++;
            }
        }
        int[] s = new int[count];
        int i = 0;
        for (int p = 1; p <= f.portCount(node); p++) {
            int e = f.endpointOfPort(f.globalPort(node, p));
            if (e != Fabric.NONE) {
                s[i++] = e;
            }
        }
        return s;
    }

    private static int firstSlot(Fabric f, int node) {
        int[] s = slots(f, node);
        return s.length == 0 ? Integer.MIN_VALUE : s[0];
    }

    private static long guidOfSlot(Fabric f, int node, int slot) {
        if (slot < 0) {
            return f.nodeGuid(node);
        }
        int g = f.endpointPort(slot);
        return f.portGuid(node, g - f.portBase(node) + 1);
    }

    private static int get(int[] switchLid, int[] endpointLid, int slot) {
        return slot < 0 ? switchLid[-slot - 1] : endpointLid[slot];
    }

    private static void set(int[] switchLid, int[] endpointLid, int slot, int lid) {
        if (slot < 0) {
            switchLid[-slot - 1] = lid;
        } else {
            endpointLid[slot] = lid;
        }
    }
}
