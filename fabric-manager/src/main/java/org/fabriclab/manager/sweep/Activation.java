package org.fabriclab.manager.sweep;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.SetAllPortInfoRequest;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * Phase 2 of a push, as InfiniBand brings a subnet up: every node's linked ports ARMED (with their
 * LIDs), and only when all are armed, every port ACTIVE. Nodes whose ports are all active with the
 * right LID are left alone. Two calls per node; CAs with several ports get their LIDs per port.
 *
 * <p>Thread-safety: stateless; used by the sweep thread.
 */
final class Activation {
    private final FanOut fanOut;
    private final long mKey;

    Activation(FanOut fanOut, long mKey) {
        this.fanOut = fanOut;
        this.mKey = mKey;
    }

    /** Arms, then activates; returns the ports that were not yet active with their LID. */
    int activate(Discovery.Result d, LidAssignment lids) throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        List<DiscoveredNode> todo = new ArrayList<>();
        int ports = 0;
        for (DiscoveredNode dn : d.nodes()) {
            int n = f.nodeByGuid(dn.info().getNodeGuid()).orElseThrow();
            int waiting = 0;
            for (PortInfo p : dn.ports()) {
                if (f.peerNode(f.globalPort(n, p.getPortNumber())) >= 0
                        && (p.getState() != PortState.PORT_STATE_ACTIVE || p.getLid() != lids.lidOf(f, n, p.getPortNumber()))) {
                    waiting++;
                }
            }
            if (waiting > 0) {
                todo.add(dn);
                ports += waiting;
            }
        }
        HeavySweep.requireAll(fanOut.run(todo, FanOut.Retry.NONE, dn -> arm(dn, f, f.nodeByGuid(dn.info().getNodeGuid()).orElseThrow(), lids)),
                "arming ports");
        SetAllPortInfoRequest active = SetAllPortInfoRequest.newBuilder().setMKey(mKey).setState(PortState.PORT_STATE_ACTIVE).build();
        HeavySweep.requireAll(fanOut.run(todo, FanOut.Retry.NONE, dn -> fanOut.stub(dn.endpoint()).setAllPortInfo(active)),
                "activating ports");
        return ports;
    }

    private Object arm(DiscoveredNode dn, Fabric f, int n, LidAssignment lids) {
        if (f.isSwitch(n) || f.portCount(n) == 1) {
            return fanOut.stub(dn.endpoint()).setAllPortInfo(SetAllPortInfoRequest.newBuilder().setMKey(mKey)
                    .setLid(lids.lidOf(f, n, 1)).setState(PortState.PORT_STATE_ARMED).build());
        }
        for (PortInfo p : dn.ports()) {
            if (f.peerNode(f.globalPort(n, p.getPortNumber())) >= 0) {
                fanOut.stub(dn.endpoint()).setPortInfo(SetPortInfoRequest.newBuilder().setMKey(mKey).setPortNumber(p.getPortNumber())
                        .setLid(lids.lidOf(f, n, p.getPortNumber())).setState(PortState.PORT_STATE_ARMED).build());
            }
        }
        return null;
    }
}
