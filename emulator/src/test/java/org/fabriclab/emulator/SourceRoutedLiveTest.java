package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.routing.torus.SourceRoute;
import org.fabriclab.routing.torus.Torus;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * Source routes on the live agents: a host writes its route into each frame, and the switches
 * forward by it over real Netty links, whatever their LFTs say. The route here is deliberately
 * not the shortest (+X, +Y, -X from T0_0 to T0_1, where the LFT goes straight +Y), so the
 * counters show which way the packets went.
 */
class SourceRoutedLiveTest {
    @Test
    void switchesForwardByTheRouteInTheFrame() throws Exception {
        Fabric f = Topologies.generate("torus:4x4");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Torus t = Torus.of(f);
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLinkGbps(1);
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            for (int s = 0; s < f.switchCount(); s++) {
                TableBatch b = TableInstall.batch(tables, s, o.vls(), false);
                fabric.node(f.name(f.switchNode(s))).management().tables().apply(new TableBatch(b.fromVersion(),
                        b.toVersion(), b.blocks(), b.lftTop(), b.sl2vl(), b.arGroups(), b.arBlocks(), b.arEnabled(),
                        t.directionPorts(f.switchNode(s))));
            }
            for (int e = 0; e < f.endpointCount(); e++) {
                var m = fabric.node(f.name(f.endpointNode(e))).management();
                m.setPort(1, tables.lids().endpointLid(e), PortState.PORT_STATE_ARMED);
                m.setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            }
            int dst = f.endpointOfPort(f.globalPort(f.nodeByName("H0_1_0").orElseThrow(), 1));
            int dlid = tables.lids().endpointLid(dst);
            LiveHost src = (LiveHost) fabric.node("H0_0_0");
            long[] routes = new long[dlid + 1];
            routes[dlid] = SourceRoute.encode(new byte[] {0, 1, 2}); // +X +Y -X
            src.management().sourceRoutes(routes);
            src.start(new Traffic(new int[] {dlid}, TrafficPattern.ALL_TO_ALL, 0, 256, 200, 1));
            LiveHost receiver = (LiveHost) fabric.node("H0_1_0");
            Waits.until("every packet arrived at H0_1_0", () -> receiver.stats().join().received() >= 200);
            assertEquals(200, receiver.stats().join().received(), "every packet arrived, once");
            PortCounterArray c = fabric.node("T0_0").counters();
            assertEquals(200, c.get(1, PortCounterArray.XMIT_PKTS), "T0_0 sent every packet +X (port 1), as the route says");
            assertEquals(0, c.get(3, PortCounterArray.XMIT_PKTS), "not +Y (port 3), where its LFT points");
            assertEquals(200, fabric.node("T1_1").counters().get(2, PortCounterArray.XMIT_PKTS), "T1_1 took the last hop -X (port 2)");
            assertTrue(receiver.stats().join().outOfOrder() == 0);
        }
    }
}
