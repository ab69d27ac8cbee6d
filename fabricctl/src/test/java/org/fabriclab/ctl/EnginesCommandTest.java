package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.routing.registry.RoutingEngines;
import org.junit.jupiter.api.Test;

/** {@code engines} and {@code route} show what each engine promises, as data the engines declare. */
class EnginesCommandTest {
    @Test
    void enginesListEveryEngineWithItsGuarantees() {
        FabricCtlTest.Run r = FabricCtlTest.run("engines", "--json");
        assertEquals(0, r.code(), r.err());
        for (RoutingEngines.Info i : RoutingEngines.all()) {
            assertTrue(r.out().contains("\"name\":\"" + i.name() + "\""), i.name() + " missing in " + r.out());
        }
        assertTrue(r.out().contains("\"name\":\"ar-dfp\",\"description\":"), r.out());
        assertTrue(r.out().contains("\"guarantees\":{\"deadlockFree\":true,\"lanes\":2,\"sourceRoutes\":false}"), r.out());
        FabricCtlTest.Run readable = FabricCtlTest.run("engines");
        assertTrue(readable.out().lines().anyMatch(l -> l.startsWith("updn ") && l.endsWith("[deadlock-free, 1 lane]")), readable.out());
        assertTrue(readable.out().lines().anyMatch(l -> l.startsWith("torus-bfs ") && l.endsWith("[deadlock-free, 1 lane, source routes]")),
                readable.out());
    }

    @Test
    void theRouteReportCarriesTheProducingEnginesGuarantees() {
        FabricCtlTest.Run r = FabricCtlTest.run("route", "--topology", "fat-tree:k=4,levels=2", "--engine", "updn", "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\"engineGuarantees\":{\"deadlockFree\":true,\"lanes\":1,\"sourceRoutes\":false}"), r.out());
        FabricCtlTest.Run torus = FabricCtlTest.run("route", "--topology", "torus:4x4", "--engine", "torus-bfs", "--json");
        assertEquals(0, torus.code(), torus.err());
        assertTrue(torus.out().contains("\"engineGuarantees\":{\"deadlockFree\":true,\"lanes\":1,\"sourceRoutes\":true}"), torus.out());
    }
}
