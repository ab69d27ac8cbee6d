package org.fabriclab.agent.link;

import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.PortState;

/**
 * What a host's data plane needs of its port's management state, cached: its LID while the port
 * is ACTIVE. Re-read from the {@link ManagedNode} only when its {@link ManagedNode#portVersion}
 * moved, so a live host event costs one volatile read, not the node's lock and a
 * {@link ManagedNode.Port} record. Confined to the host's event loop.
 */
final class PortCache {
    private final ManagedNode node;
    private final int port;
    private int seen = -1;
    private int activeLid;

    PortCache(ManagedNode node, int port) {
        this.node = node;
        this.port = port;
    }

    /** The port's LID if it is ACTIVE and has one, else 0. */
    int activeLid() {
        int v = node.portVersion();
        if (v != seen) {
            ManagedNode.Port p = node.port(port); // the state at least as new as v
            seen = v;
            activeLid = p.state() == PortState.PORT_STATE_ACTIVE ? p.lid() : 0;
        }
        return activeLid;
    }
}
