package org.fabriclab.manager.discovery;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.proto.v1.GetNodeRecordRequest;
import org.fabriclab.proto.v1.NodeInfo;
import org.fabriclab.proto.v1.NodeRecord;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers a fabric breadth-first from one node's management endpoint, as OpenSM's heavy sweep
 * does with directed-route SMPs: NodeInfo, PortInfo (with the neighbour each port's link-level
 * hello learned) and SwitchInfo of each node, read in one GetNodeRecord call per node, one BFS
 * layer at a time, through the manager's {@link FanOut}: the requests in flight are bounded,
 * every call has a deadline and is retried on UNAVAILABLE or DEADLINE_EXCEEDED. The model is built with the nodes in GUID order, so the same fabric always
 * gives the same model, and the same routes, whichever node the walk started from.
 */
public final class Discovery {
    private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);
    private final FanOut fanOut;

    /**
     * Why the seed could not be read, told by what answered: nothing (the fabric is not running, a
     * wrong port), a gRPC server without the management service (a fabric manager's admin port:
     * {@code --connect localhost:50051}), or a server that does not speak HTTP/2 (the daemon's
     * metrics port, another web server), each with what to give instead.
     */
    static String seedFailure(String seed, Throwable failure) {
        String why = FanOut.describe(failure);
        Status.Code code = failure instanceof StatusRuntimeException s ? s.getStatus().getCode() : Status.Code.UNKNOWN;
        if (code == Status.Code.UNIMPLEMENTED) {
            return "the seed " + seed + " is a gRPC server but not a node's management endpoint (" + why + "): a fabric manager's "
                    + "admin port? Give --connect the endpoint 'emulator up' prints (HOST:PORT/GUID)";
        }
        if (code == Status.Code.INTERNAL && why.toLowerCase(Locale.ROOT).contains("http2")) {
            return "the seed " + seed + " does not speak HTTP/2, so it is no gRPC server (" + why + "): a metrics or web port? Give "
                    + "--connect the management endpoint 'emulator up' prints (HOST:PORT/GUID)";
        }
        return "the seed " + seed + " does not answer: " + why + "; check that the fabric is running and the address is right";
    }

    /** Queries the nodes of each layer through {@code fanOut}, retrying (reads are safe to redo). */
    public Discovery(FanOut fanOut) {
        this.fanOut = fanOut;
    }

    /** The discovered fabric: the nodes, in discovery order, and the fabric model built from them. */
    public record Result(List<DiscoveredNode> nodes, Fabric fabric, Map<Long, DiscoveredNode> byGuid) {
    }

    /**
     * Discovers everything reachable from {@code seed}.
     *
     * @throws DiscoveryException if the seed does not answer, naming it and why
     */
    public Result discover(String seed) throws DiscoveryException, InterruptedException {
        Map<Long, DiscoveredNode> byGuid = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        List<String> layer = List.of(seed);
        seen.add(seed);
        boolean first = true;
        while (!layer.isEmpty()) {
            List<DiscoveredNode> found = new ArrayList<>();
            for (FanOut.Result<String, DiscoveredNode> r : fanOut.run(layer, FanOut.Retry.IDEMPOTENT, this::query)) {
                if (r.ok()) {
                    found.add(r.value());
                } else if (first) {
                    throw new DiscoveryException(seedFailure(r.item(), r.failure()));
                } else {
                    LOG.warn("node at {} does not answer ({}); it is left out of this sweep", r.item(), FanOut.describe(r.failure()));
                }
            }
            first = false;
            found.sort(Comparator.comparingLong(n -> n.info().getNodeGuid()));
            List<String> next = new ArrayList<>();
            for (DiscoveredNode n : found) {
                if (byGuid.putIfAbsent(n.info().getNodeGuid(), n) != null) {
                    continue;
                }
                for (PortInfo p : n.ports()) {
                    if (p.getState() != PortState.PORT_STATE_DOWN && !p.getNeighbourEndpoint().isEmpty()
                            && seen.add(p.getNeighbourEndpoint())) {
                        next.add(p.getNeighbourEndpoint());
                    }
                }
            }
            layer = next;
        }
        // the model is built in GUID order, not discovery order: the same fabric gives the same model
        // (and so the same routes) whichever node the manager was seeded with
        List<DiscoveredNode> nodes = new ArrayList<>(byGuid.values());
        nodes.sort((a, b) -> Long.compareUnsigned(a.info().getNodeGuid(), b.info().getNodeGuid()));
        return new Result(nodes, build(nodes, byGuid), byGuid);
    }

    private DiscoveredNode query(String endpoint) {
        NodeRecord r = fanOut.stub(endpoint).getNodeRecord(GetNodeRecordRequest.getDefaultInstance());
        return new DiscoveredNode(endpoint, r.getNodeInfo(), r.getPortsList(),
                r.getNodeInfo().getType() == NodeType.NODE_TYPE_SWITCH ? r.getSwitchInfo() : null, r.getSmInfo());
    }

    /** The fabric model: nodes named by their description (made unique with the GUID if need be), links from the hellos. */
    static Fabric build(List<DiscoveredNode> nodes, Map<Long, DiscoveredNode> byGuid) {
        FabricBuilder b = new FabricBuilder("discovered");
        Map<Long, Integer> id = new HashMap<>();
        Set<String> names = new HashSet<>();
        for (DiscoveredNode n : nodes) {
            NodeInfo i = n.info();
            String name = i.getDescription().isEmpty() || !names.add(i.getDescription())
                    ? i.getDescription() + "@" + Long.toHexString(i.getNodeGuid()) : i.getDescription();
            names.add(name);
            int node = b.addNode(i.getType() == NodeType.NODE_TYPE_SWITCH ? org.fabriclab.routing.fabric.NodeType.SWITCH
                    : org.fabriclab.routing.fabric.NodeType.CA, name, i.getPortCount(), i.getNodeGuid());
            id.put(i.getNodeGuid(), node);
        }
        for (DiscoveredNode n : nodes) {
            long guid = n.info().getNodeGuid();
            for (PortInfo p : n.ports()) {
                long peer = p.getNeighbourNodeGuid();
                if (p.getState() == PortState.PORT_STATE_DOWN || peer == 0 || !id.containsKey(peer)) {
                    continue;
                }
                int pp = p.getNeighbourPort();
                // each link once, from its lower (GUID, port) end; only if the other end agrees
                if (Long.compareUnsigned(guid, peer) > 0 || (guid == peer && p.getPortNumber() > pp)) {
                    continue;
                }
                DiscoveredNode other = byGuid.get(peer);
                boolean agrees = other.ports().stream().anyMatch(q -> q.getPortNumber() == pp
                        && q.getNeighbourNodeGuid() == guid && q.getNeighbourPort() == p.getPortNumber()
                        && q.getState() != PortState.PORT_STATE_DOWN);
                if (!agrees) {
                    LOG.warn("link {}[{}] -> {}[{}] is seen from one end only; left out until both ends agree",
                            n.info().getDescription(), p.getPortNumber(), other.info().getDescription(), pp);
                    continue;
                }
                try {
                    b.link(id.get(guid), p.getPortNumber(), id.get(peer), pp);
                } catch (IllegalArgumentException e) {
                    LOG.warn("link {}[{}] -> {}[{}] is left out: {}", n.info().getDescription(), p.getPortNumber(),
                            other.info().getDescription(), pp, e.getMessage());
                }
            }
        }
        return b.build();
    }
}
