package org.fabriclab.manager.discovery;

import java.util.List;
import org.fabriclab.proto.v1.NodeInfo;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SwitchInfo;

/**
 * What discovery learned of one node: where it answers, who it is, its ports, (switches) its
 * tables' state, and which manager claims it.
 */
public record DiscoveredNode(String endpoint, NodeInfo info, List<PortInfo> ports, SwitchInfo switchInfo, SmInfo smInfo) {
    public DiscoveredNode {
        ports = List.copyOf(ports);
    }
}
