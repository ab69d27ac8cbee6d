package org.fabriclab.routing.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.stream.Stream;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.engine.file.LftDumpWriter;
import org.fabriclab.routing.format.LftDump;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.routing.torus.SourceRouteAnalysis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every engine of the registry keeps what it declares ({@link EngineGuarantees}) on a fabric it
 * can route, and {@link SwitchInstall} maps its tables as documented: SL i on VL i mod the
 * switch's lanes, then the lane turns; AR and direction ports as the engine made them.
 */
class GuaranteesAndInstallTest {
    /** A fabric each engine can route: fat trees (with parallel links for ar-lag), Dragonfly+, Dragonfly, torus. */
    static String fabricFor(String engine) {
        if (engine.startsWith("torus-")) {
            return "torus:4x4";
        }
        if (engine.startsWith("ar-dfp")) {
            return "dragonfly-plus:p=2,leaves=2,spines=2,h=2";
        }
        if (engine.startsWith("df-") || engine.equals("q-adaptive")) {
            return "dragonfly:p=2,a=4,h=2";
        }
        return "rlft:leaves=4,spines=2,hosts=2,parallel=2";
    }

    static Stream<String> engines() {
        return RoutingEngines.all().stream().map(RoutingEngines.Info::name);
    }

    /** Routes {@code f} with {@code engine}; the file engine replays minhop's tables through a dump. */
    static ForwardingTables route(String engine, Fabric f, LidAssignment lids) throws RoutingException, IOException {
        RoutingOptions options = RoutingOptions.DEFAULTS;
        if (engine.equals("file")) {
            StringWriter dump = new StringWriter();
            LftDumpWriter.write(RoutingEngines.create("minhop").route(new RoutingRequest(f, lids, options)), dump);
            options = options.withLftDump(LftDump.read(new StringReader(dump.toString()), "minhop.dump"));
        }
        return RoutingEngines.create(engine).route(new RoutingRequest(f, lids, options));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void everyEngineKeepsWhatItDeclares(String engine) throws Exception {
        Fabric f = Topologies.generate(fabricFor(engine));
        ForwardingTables t = route(engine, f, LidAssigner.assign(f));
        EngineGuarantees g = RoutingEngines.create(engine).guarantees();
        String where = engine + " on " + fabricFor(engine) + " (" + g.describe() + ")";
        assertEquals(g.lanes(), g.lanesNeeded(t), "the tables need no more lanes than declared: " + where);
        assertEquals(g.sourceRoutes(), t.sourceRoutes() != null, where);
        if (g.deadlockFree()) {
            if (g.sourceRoutes()) {
                assertTrue(SourceRouteAnalysis.analyze(t.sourceRoutes()).deadlockFree(), where);
            } else {
                RouteReport r = RouteAnalyzer.analyze(t);
                assertTrue(r.deadlockFree(), "declared deadlock-free but the CDG has a cycle " + r.cdgCycle() + ": " + where);
            }
        }
        for (int s = 0; s < f.switchCount(); s++) {
            assertTrue(SwitchInstall.of(t, s, g.lanes(), true).lanesNeeded() <= g.lanes(), where + ", switch " + s);
        }
    }

    @Test
    void slIRidesVlIModTheLanesThenTheLaneTurns() throws Exception {
        Fabric f = Topologies.generate(fabricFor("ar-dfp"));
        ForwardingTables t = route("ar-dfp", f, LidAssigner.assign(f));
        int turned = -1;
        for (int s = 0; s < f.switchCount() && turned < 0; s++) {
            turned = t.ar().laneTurns(s).length > 0 ? s : -1;
        }
        assertTrue(turned >= 0, "ar-dfp turns some lanes");
        SwitchInstall in = SwitchInstall.of(t, turned, 4, true);
        assertEquals(new SwitchInstall.LaneMap(0, 0, new byte[] {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}), in.sl2vl().get(0));
        int[][] turns = t.ar().laneTurns(turned);
        assertEquals(turns.length + 1, in.sl2vl().size());
        for (int i = 0; i < turns.length; i++) {
            SwitchInstall.LaneMap m = in.sl2vl().get(i + 1);
            assertEquals(turns[i][0], m.inputPort());
            assertEquals(turns[i][1], m.outputPort());
            for (byte vl : m.vl()) {
                assertEquals(turns[i][2], vl);
            }
        }
        assertTrue(in.arEnabled());
        assertEquals(t.ar().groupCount(turned), in.arGroups().length);
        assertEquals(0, in.lft().length % SwitchInstall.BLOCK);
        assertEquals(t.lids().maxLid(), in.lftTop());
        assertEquals(in.lft().length, in.arLft().length);
        assertTrue(!SwitchInstall.of(t, turned, 4, false).arEnabled(), "AR off when not routing adaptively");
        assertEquals(in, SwitchInstall.of(t, turned, 4, true), "the same tables are equal, arrays by content");
        assertTrue(!in.equals(SwitchInstall.of(t, turned, 2, true)), "another SL-to-VL map is another install");
    }

    @Test
    void withoutArOrSourceRoutesTheSwitchGetsLftAndLanesOnly() throws Exception {
        Fabric f = Topologies.generate("torus:4x4");
        ForwardingTables t = route("minhop", f, LidAssigner.assign(f));
        SwitchInstall in = SwitchInstall.of(t, 0, 1, true);
        assertNull(t.ar());
        assertEquals(1, in.sl2vl().size());
        assertArrayEquals(new byte[16], in.sl2vl().get(0).vl());
        assertEquals(0, in.arGroups().length);
        assertTrue(!in.arEnabled());
        assertEquals(0, in.directionPorts().length);
        ForwardingTables sr = route("torus-bfs", f, LidAssigner.assign(f));
        assertNotNull(sr.sourceRoutes());
        assertArrayEquals(sr.sourceRoutes().torus().directionPorts(f.switchNode(3)), SwitchInstall.of(sr, 3, 1, true).directionPorts());
    }
}
