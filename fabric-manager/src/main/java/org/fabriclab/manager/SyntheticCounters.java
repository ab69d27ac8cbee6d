package org.fabriclab.manager;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.AdaptiveDecisions;
import org.fabriclab.proto.v1.FlowCounter;
import org.fabriclab.proto.v1.FlowCounters;
import org.fabriclab.proto.v1.InputBytes;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.proto.v1.NodeInfo;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.XmitDiscards;
import org.fabriclab.routing.fabric.Fabric;

/**
 * A fabric as discovery would see it and counters as its agents would report them, made up: how
 * the perf manager and its exposition are measured on fabrics too big to emulate here (the
 * 18-ary 3-tree's 6,804 nodes), through the same code path as a live poll. Every linked port
 * carries traffic at a utilisation between 0.1 and 0.9 that depends on the port and some transmit
 * wait; one switch output in {@code congestedEvery} waits for credit a fifth of the time (so it is
 * congested, with two inputs' shares, packets in its buffers and heads waiting); every host receives from {@code flowsPerHost} sources; model time advances by one
 * second per poll, or as many as {@link #nextPoll(long)} says (reads are stamped with {@link #modelTimeNanos}).
 */
final class SyntheticCounters implements PerfManager.CounterSource {
    private static final long SECOND = 1_000_000_000L;
    private final Fabric fabric;
    private final double rateGbps;
    private final int flowsPerHost;
    private final int congestedEvery;
    private final AtomicLong polls = new AtomicLong();

    SyntheticCounters(Fabric fabric, double rateGbps, int flowsPerHost, int congestedEvery) {
        this.fabric = fabric;
        this.rateGbps = rateGbps;
        this.flowsPerHost = flowsPerHost;
        this.congestedEvery = congestedEvery;
    }

    /** Every node of {@code fabric} as discovery returns it, every link up at {@code rateGbps}. */
    static Discovery.Result discovered(Fabric fabric, double rateGbps) {
        Map<Long, DiscoveredNode> byGuid = new LinkedHashMap<>();
        for (int v = 0; v < fabric.nodeCount(); v++) {
            List<PortInfo> ports = new ArrayList<>();
            for (int p = 1; p <= fabric.portCount(v); p++) {
                int g = fabric.globalPort(v, p);
                int peer = fabric.peerNode(g);
                PortInfo.Builder b = PortInfo.newBuilder().setPortNumber(p).setRateGbps(rateGbps);
                if (peer == Fabric.NONE) {
                    b.setState(PortState.PORT_STATE_DOWN);
                } else {
                    b.setState(PortState.PORT_STATE_ACTIVE).setNeighbourNodeGuid(fabric.nodeGuid(peer)).setNeighbourPort(fabric.peerPort(g));
                }
                ports.add(b.build());
            }
            NodeInfo info = NodeInfo.newBuilder().setType(fabric.isSwitch(v) ? NodeType.NODE_TYPE_SWITCH : NodeType.NODE_TYPE_CA).setNodeGuid(fabric.nodeGuid(v))
                    .setPortCount(fabric.portCount(v)).setDescription(fabric.name(v)).build();
            byGuid.put(fabric.nodeGuid(v), new DiscoveredNode("synthetic:" + v, info, ports, null, null));
        }
        return new Discovery.Result(List.copyOf(byGuid.values()), fabric, byGuid);
    }

    /** Starts the next poll: every counter read from now on is one model second later. */
    void nextPoll() {
        nextPoll(1);
    }

    /** Starts the next poll, {@code seconds} model seconds later. */
    void nextPoll(long seconds) {
        polls.addAndGet(seconds);
    }

    long modelTimeNanos() {
        return polls.get() * SECOND;
    }

    @Override
    public NodeCounters read(DiscoveredNode n) {
        long t = polls.get();
        int v = fabric.nodeByGuid(n.info().getNodeGuid()).orElseThrow();
        NodeCounters.Builder b = NodeCounters.newBuilder().setModelTimeNs(modelTimeNanos());
        for (int p = 1; p <= fabric.portCount(v); p++) {
            int g = fabric.globalPort(v, p);
            double utilisation = 0.1 + 0.8 * ((g * 2654435761L >>> 8) % 1000) / 1013.0;
            long bytes = (long) (t * utilisation * rateGbps * SECOND / 8);
            PortCounters.Builder c = PortCounters.newBuilder().setPortNumber(p).setModelTimeNs(modelTimeNanos())
                    .setXmitDataOctets(bytes).setRcvDataOctets(bytes).setXmitPkts(bytes / 2048).setRcvPkts(bytes / 2048)
                    .setXmitWaitNs(t * (g % 7));
            boolean congested = fabric.isSwitch(v) && g % congestedEvery == 0;
            if (congested) {
                c.setInputQueuedPackets((int) (g % 5) + 1).setOutputWaitingHeads((int) (g % 3) + 1);
                c.setXmitWaitNs(t * SECOND / 5).setXmitDiscards(t).setXmitDiscardsByReason(XmitDiscards.newBuilder().setOverflow(t));
            }
            if (fabric.isSwitch(v) && fabric.peerNode(g) != Fabric.NONE) {
                int other = p % fabric.portCount(v) + 1;
                c.addInputBytes(InputBytes.newBuilder().setInputPort(other).setBytes(bytes / 3));
                c.addInputBytes(InputBytes.newBuilder().setInputPort(other % fabric.portCount(v) + 1).setBytes(bytes - bytes / 3));
            }
            b.addPorts(c);
        }
        if (fabric.isSwitch(v)) {
            b.setAdaptiveDecisions(AdaptiveDecisions.newBuilder().setMinimal(t * 1000).setNonminimal(t * 10));
        } else {
            FlowCounters.Builder f = FlowCounters.newBuilder().setModelTimeNs(modelTimeNanos());
            int e = fabric.endpointOfPort(fabric.globalPort(v, 1));
            for (int k = 1; k <= flowsPerHost; k++) {
                int src = (e + k) % fabric.endpointCount();
                long bytes = t * (1_000_000L + 7919L * ((e * 31L + k) % 1000));
                f.addFlows(FlowCounter.newBuilder().setSourceLid(src + 1).setBytes(bytes).setPackets(bytes / 2048).setOutOfOrder(t % 3));
            }
            b.setFlows(f);
        }
        return b.build();
    }
}
