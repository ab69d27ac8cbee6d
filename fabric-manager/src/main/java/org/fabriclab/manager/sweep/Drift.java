package org.fabriclab.manager.sweep;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.NodeRecord;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * What a light sweep compares: a node's record now against the fabric as the last heavy sweep
 * left it, and against what this manager wrote to it. A difference in the cabling (a link up or
 * down, another neighbour) is the fabric changing; one in what the manager wrote (a port's state
 * or LID, a switch's table version, SMInfo naming another manager or no M_Key) is someone else
 * writing, a stranger's blackhole among them. Either is answered by a heavy sweep, which
 * rewrites the switch whole when its version is not this manager's ({@link TablePush}).
 *
 * <p>Stateless; called from the light sweep's fan-out threads.
 */
public final class Drift {
    private Drift() {
    }

    /** This manager as nodes should name it after its sweep: its SM GUID, and whether it sets an M_Key. */
    public record Owner(long smGuid, boolean mKey) {
    }

    /**
     * What differs at {@code before}'s node, read again as {@code now}, from the heavy sweep
     * {@code o} and this manager's writes ({@code written}: the version it last moved the switch's
     * tables to, -1 for a channel adapter or a switch it did not write); empty if nothing.
     */
    public static List<String> of(DiscoveredNode before, NodeRecord now, HeavySweep.Outcome o, long written, Owner owner) {
        String name = before.info().getDescription();
        List<String> out = new ArrayList<>();
        if (!sameLinks(before.ports(), now.getPortsList())) {
            out.add(name + ": a link came up, went down or leads elsewhere");
            return out;
        }
        Fabric f = o.fabric();
        int n = f.nodeByGuid(before.info().getNodeGuid()).orElse(-1);
        if (n < 0) {
            return out;
        }
        LidAssignment lids = o.lids();
        for (PortInfo p : now.getPortsList()) {
            if (f.peerNode(f.globalPort(n, p.getPortNumber())) < 0) {
                continue;
            }
            int lid = lids.lidOf(f, n, p.getPortNumber());
            if (p.getState() != PortState.PORT_STATE_ACTIVE || p.getLid() != lid) {
                out.add(name + " port " + p.getPortNumber() + ": " + p.getState() + " with LID " + p.getLid()
                        + ", where this manager made it ACTIVE with LID " + lid);
                break;
            }
        }
        if (now.hasSwitchInfo() && written >= 0 && now.getSwitchInfo().getTableVersion() != written) {
            out.add(name + ": holds table version " + Long.toUnsignedString(now.getSwitchInfo().getTableVersion())
                    + ", where this manager wrote version " + written + " (someone else wrote its tables)");
        }
        SmInfo sm = now.getSmInfo();
        if (sm.getSmGuid() != owner.smGuid() || sm.getState() != SmState.SM_STATE_MASTER) {
            out.add(name + ": SMInfo names manager " + Long.toHexString(sm.getSmGuid()) + " (" + sm.getState() + ", priority "
                    + sm.getPriority() + "), not this one");
        } else if (sm.getMKeySet() != owner.mKey()) {
            out.add(name + ": " + (owner.mKey() ? "its M_Key is gone" : "an M_Key this manager did not set guards it"));
        }
        return out;
    }

    /** True if the same ports are up and lead to the same neighbours. */
    static boolean sameLinks(List<PortInfo> before, List<PortInfo> now) {
        if (before.size() != now.size()) {
            return false;
        }
        for (int i = 0; i < before.size(); i++) {
            var a = before.get(i);
            var b = now.get(i);
            boolean upA = a.getState() != PortState.PORT_STATE_DOWN;
            boolean upB = b.getState() != PortState.PORT_STATE_DOWN;
            if (upA != upB || a.getNeighbourNodeGuid() != b.getNeighbourNodeGuid() || a.getNeighbourPort() != b.getNeighbourPort()) {
                return false;
            }
        }
        return true;
    }
}
