package org.fabriclab.manager.sweep;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.NodeInfo;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SwitchInfo;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** The validation reads what the engine declares, not its name: deadlock freedom and the lanes its tables need. */
class RouteValidationTest {
    private static final Fabric TORUS = Topologies.generate("torus:4x4");

    /** The torus as discovered, every switch reporting {@code vls} data VLs. */
    private static Discovery.Result discovered(int vls) {
        Map<Long, DiscoveredNode> byGuid = new HashMap<>();
        for (int s = 0; s < TORUS.switchCount(); s++) {
            long guid = TORUS.nodeGuid(TORUS.switchNode(s));
            byGuid.put(guid, new DiscoveredNode("inproc:" + s, NodeInfo.newBuilder().setNodeGuid(guid).build(), List.of(),
                    SwitchInfo.newBuilder().setDataVls(vls).build(), SmInfo.getDefaultInstance()));
        }
        return new Discovery.Result(List.copyOf(byGuid.values()), TORUS, byGuid);
    }

    private static void validate(int vls, EngineGuarantees g) throws Exception {
        ForwardingTables minhop = RoutingEngines.create("minhop").route(new RoutingRequest(TORUS, LidAssigner.assign(TORUS),
                RoutingOptions.DEFAULTS));
        RouteValidation.validate(discovered(vls), new EngineChain.Result(minhop, g, List.of()), RouteAnalyzer.analyze(minhop));
    }

    @Test
    void aBrokenPromiseOfDeadlockFreedomIsRefusedNamingTheEngine() throws Exception {
        validate(1, EngineGuarantees.NONE); // minhop's cycles on a torus are allowed: it promises nothing
        SweepException e = assertThrows(SweepException.class, () -> validate(1, EngineGuarantees.DEADLOCK_FREE));
        assertTrue(e.getMessage().startsWith("minhop promises deadlock freedom but the channel dependency graph has a cycle"), e.getMessage());
        assertTrue(e.getMessage().endsWith("no switch was changed"), e.getMessage());
    }

    @Test
    void switchesWithFewerLanesThanTheEngineNeedsAreRefusedNamingEngineAndSwitch() throws Exception {
        EngineGuarantees twoLanes = new EngineGuarantees(false, 2, false);
        validate(2, twoLanes);
        validate(0, twoLanes); // a switch that does not report its lanes is not judged
        SweepException e = assertThrows(SweepException.class, () -> validate(1, twoLanes));
        assertTrue(e.getMessage().startsWith("minhop needs 2 data VLs (it declares 2;"), e.getMessage());
        assertTrue(e.getMessage().contains("but switch T0_0 has 1"), e.getMessage());
        assertTrue(e.getMessage().endsWith("no switch was changed"), e.getMessage());
    }
}
