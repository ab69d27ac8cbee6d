package org.fabriclab.routing.lid;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The LIDs of a fabric with LMC 0: one LID per switch (on its management port 0) and one per
 * endpoint (linked CA port). Immutable; lookups are array reads.
 */
public final class LidAssignment {
    /** Highest unicast LID (IBA: 0x0001..0xBFFF are unicast). */
    public static final int MAX_UNICAST_LID = 0xBFFF;

    private final int[] switchLid;
    private final int[] endpointLid;
    /** Per LID: the endpoint number, or {@code -(switchIndex + 1)} for a switch, or 0 if unused. */
    private final int[] owner;
    private final int maxLid;

    LidAssignment(int[] switchLid, int[] endpointLid) {
        this.switchLid = switchLid;
        this.endpointLid = endpointLid;
        int max = 0;
        for (int l : switchLid) {
            max = Math.max(max, l);
        }
        for (int l : endpointLid) {
            max = Math.max(max, l);
        }
        maxLid = max;
        owner = new int[max + 1];
        Arrays.fill(owner, Integer.MIN_VALUE);
        for (int s = 0; s < switchLid.length; s++) {
            owner[switchLid[s]] = -(s + 1);
        }
        for (int e = 0; e < endpointLid.length; e++) {
            owner[endpointLid[e]] = e;
        }
    }

    /** LID of switch number {@code s}. */
    public int switchLid(int s) {
        return switchLid[s];
    }

    /** LID of endpoint {@code e}. */
    public int endpointLid(int e) {
        return endpointLid[e];
    }

    /** The highest LID in use: a forwarding table needs {@code maxLid() + 1} entries. */
    public int maxLid() {
        return maxLid;
    }

    /** The endpoint that owns {@code lid}, or {@link Fabric#NONE} if it is a switch's or unused. */
    public int endpointOfLid(int lid) {
        if (lid <= 0 || lid > maxLid) {
            return Fabric.NONE;
        }
        int o = owner[lid];
        return o >= 0 ? o : Fabric.NONE;
    }

    /** The switch number that owns {@code lid}, or {@link Fabric#NONE}. */
    public int switchOfLid(int lid) {
        if (lid <= 0 || lid > maxLid) {
            return Fabric.NONE;
        }
        int o = owner[lid];
        return o < 0 && o != Integer.MIN_VALUE ? -o - 1 : Fabric.NONE;
    }

    /** True if some switch or endpoint owns this LID. */
    public boolean inUse(int lid) {
        return lid > 0 && lid <= maxLid && owner[lid] != Integer.MIN_VALUE;
    }

    /** The LID of a node's port as a forwarding table names it: a switch's own LID, or a CA port's LID; 0 if none. */
    public int lidOf(Fabric fabric, int node, int port) {
        if (fabric.isSwitch(node)) {
            return switchLid[fabric.switchIndex(node)];
        }
        int e = fabric.endpointOfPort(fabric.globalPort(node, port));
        return e == Fabric.NONE ? 0 : endpointLid[e];
    }

    /** Port GUID to LID, in LID order: what OpenSM keeps in its {@code guid2lid} file. */
    public Map<Long, Integer> byPortGuid(Fabric fabric) {
        Map<Long, Integer> m = new LinkedHashMap<>();
        for (int lid = 1; lid <= maxLid; lid++) {
            int o = owner[lid];
            if (o == Integer.MIN_VALUE) {
                continue;
            }
            if (o >= 0) {
                int g = fabric.endpointPort(o);
                int node = fabric.nodeOfGlobalPort(g);
                m.put(fabric.portGuid(node, g - fabric.portBase(node) + 1), lid);
            } else {
                m.put(fabric.nodeGuid(fabric.switchNode(-o - 1)), lid);
            }
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * What a {@code guid2lid} file holds after this assignment: every port of {@code fabric} with its
     * LID, and the ports {@code remembered} names that are not in the fabric now (a node that is
     * down) with theirs, unless a port of the fabric took that LID. In LID order.
     */
    public Map<Long, Integer> byPortGuidRemembering(Fabric fabric, Map<Long, Integer> remembered) {
        Map<Long, Integer> now = byPortGuid(fabric);
        TreeMap<Integer, Long> byLid = new TreeMap<>();
        now.forEach((guid, lid) -> byLid.put(lid, guid));
        remembered.forEach((guid, lid) -> {
            if (!now.containsKey(guid) && lid > 0 && lid <= MAX_UNICAST_LID && !inUse(lid)) {
                byLid.putIfAbsent(lid, guid);
            }
        });
        Map<Long, Integer> m = new LinkedHashMap<>();
        byLid.forEach((lid, guid) -> m.putIfAbsent(guid, lid));
        return Collections.unmodifiableMap(m);
    }
}
