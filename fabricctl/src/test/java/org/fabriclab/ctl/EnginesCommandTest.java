package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
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

    /** Each engine's parameters with their defaults, as the engine declares them; none for the table engines. */
    @Test
    void enginesListTheirParametersWithTheirDefaults() {
        FabricCtlTest.Run r = FabricCtlTest.run("engines", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode engines = r.json();
        assertEquals(RoutingEngines.all().size(), engines.size());
        for (JsonNode e : engines) {
            Map<String, String> declared = RoutingEngines.create(e.path("name").asText()).parameters();
            assertEquals(declared.size(), e.path("parameters").size(), e.toString());
            declared.forEach((name, value) -> assertEquals(value, e.path("parameters").path(name).asText(), e.path("name") + " " + name));
        }
        JsonNode q = find(engines, "q-adaptive");
        assertEquals("0.2", q.path("parameters").path("alpha").asText());
        assertEquals("0.04", q.path("parameters").path("beta").asText());
        assertEquals("0.001", q.path("parameters").path("epsilon").asText());
        assertEquals("0.2", q.path("parameters").path("q_thld1").asText());
        assertEquals("0.35", q.path("parameters").path("q_thld2").asText());
        assertEquals(0, find(engines, "updn").path("parameters").size());
        // each Dragonfly engine declares what its algorithm reads: MIN and Valiant nothing, UGAL its threshold and bias
        assertEquals(0, find(engines, "df-min").path("parameters").size(), find(engines, "df-min").toString());
        assertEquals(0, find(engines, "df-valn").path("parameters").size(), find(engines, "df-valn").toString());
        assertEquals("2.0", find(engines, "df-ugalg").path("parameters").path("ugal_threshold").asText());
        assertEquals(2, find(engines, "df-ugalg").path("parameters").size(), find(engines, "df-ugalg").toString());
        assertTrue(q.path("parameters").path("ugal_bias").isMissingNode(), "q-adaptive does not read UGAL's bias");
        FabricCtlTest.Run readable = FabricCtlTest.run("engines");
        List<String> lines = readable.out().lines().toList();
        int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("q-adaptive ")).findFirst().orElseThrow());
        assertTrue(lines.get(at + 1).strip().startsWith("--engine-param (defaults): alpha=0.2 beta=0.04 epsilon=0.001 q_thld1=0.2 q_thld2=0.35"),
                lines.get(at + 1));
        assertTrue(lines.stream().filter(l -> l.startsWith("updn ")).count() == 1
                && !lines.get(lines.indexOf(lines.stream().filter(l -> l.startsWith("updn ")).findFirst().orElseThrow()) + 1)
                .contains("--engine-param"), "updn reads no parameter: " + readable.out());
    }

    private static JsonNode find(JsonNode engines, String name) {
        for (JsonNode e : engines) {
            if (e.path("name").asText().equals(name)) {
                return e;
            }
        }
        throw new AssertionError(name + " not listed: " + engines);
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
