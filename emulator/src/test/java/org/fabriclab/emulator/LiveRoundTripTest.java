package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.analysis.NoLoadLatency;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * The NIC's latency counter on the live plane is Aries', as in the simulator: the round trips of
 * the host's own packets. One host of a 4 x 4 torus sends 200 packets to its neighbour's host, one
 * switch-to-switch link away; the receiver's loop hands each response to the sender's, which
 * counts it once it is due (it wakes for it: no traffic of its own follows). The sender samples
 * every one of its packets, each no quicker than its way there and its response's back through
 * the empty fabric, over the one link between the switches; the host that only receives samples none.
 */
class LiveRoundTripTest {
    @Test
    void theSenderCountsItsPacketsRoundTripsAndTheReceiverNone() throws Exception {
        Fabric f = Topologies.generate("torus:4x4");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLinkGbps(1);
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            LiveHost[] host = LiveHosts.activate(fabric, f, tables, o.vls());
            int from = f.endpointOfPort(f.globalPort(f.nodeByName("H0_0_0").orElseThrow(), 1));
            int to = f.endpointOfPort(f.globalPort(f.nodeByName("H0_1_0").orElseThrow(), 1));
            int packets = 200;
            LiveHost src = host[from];
            LiveHost receiver = host[to];
            src.start(new Traffic(new int[] {tables.lids().endpointLid(to)}, TrafficPattern.ALL_TO_ALL, 0, 256, packets, 1));
            Waits.until("every packet arrived at H0_1_0", () -> receiver.stats().join().received() >= packets);
            PortCounterArray sender = src.counters();
            Waits.until("every response back at H0_0_0", () -> sender.getNode(PortCounterArray.NIC_LATENCY_PACKETS) >= packets);
            assertEquals(packets, sender.getNode(PortCounterArray.NIC_LATENCY_PACKETS), "each of its packets, once");
            long noLoad = new NoLoadLatency(f, o.linkLatencyNs(), o.linkGbps(), FrameSizes.DATA_HEADER + 256).ns(from, to)
                    + new NoLoadLatency(f, o.linkLatencyNs(), o.linkGbps(), FrameSizes.DATA_HEADER).ns(to, from);
            long mean = sender.getNode(PortCounterArray.NIC_LATENCY_NS) / packets;
            assertTrue(mean >= noLoad, "a round trip of " + mean + " ns, under the empty fabric's " + noLoad);
            assertEquals(packets, sender.getNode(PortCounterArray.NIC_RECEIVED_HOPS), "one link between the two switches each");
            PortCounterArray only = receiver.counters();
            assertEquals(0, only.getNode(PortCounterArray.NIC_LATENCY_PACKETS), "a host that only receives samples nothing");
            assertEquals(0, only.getNode(PortCounterArray.NIC_LATENCY_NS));
        }
    }
}
