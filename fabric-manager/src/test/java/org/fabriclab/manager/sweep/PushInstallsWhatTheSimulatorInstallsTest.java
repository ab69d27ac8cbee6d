package org.fabriclab.manager.sweep;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntToLongFunction;
import java.util.stream.Stream;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchInstall;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.engine.file.LftDumpWriter;
import org.fabriclab.routing.format.LftDump;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * For every engine of the registry, the tables the daemon's push leaves in live switches (through
 * the real management service, in-process gRPC) equal what the simulator installs from the same
 * engine's tables ({@code TableInstall}, as {@code Simulation} and the scenarios call it), field by
 * field; and after minhop replaces the engine, equal to what the simulator installs for minhop:
 * the push takes back AR state, lane turns and direction ports it no longer wants.
 */
class PushInstallsWhatTheSimulatorInstallsTest {
    /** A fabric each engine can route: fat trees (with parallel links for ar-lag), Dragonfly+, Dragonfly, torus. */
    static String fabricFor(String engine) {
        if (engine.startsWith("torus-")) {
            return "torus:4x4";
        }
        if (engine.startsWith("df-") || engine.equals("q-adaptive")) {
            return "dragonfly:p=1,a=2,h=2,g=4";
        }
        return engine.startsWith("ar-dfp") ? "dragonfly-plus:p=1,leaves=2,spines=2,h=2" : "rlft:leaves=4,spines=2,hosts=1,parallel=2";
    }

    static Stream<String> engines() {
        return RoutingEngines.all().stream().map(RoutingEngines.Info::name);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("engines")
    void thePushInstallsWhatTheSimulatorInstalls(String engine) throws Exception {
        // switches with the lanes the engine needs (a Dragonfly algorithm up to 5)
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLanes(Math.max(2, RoutingEngines.create(engine).guarantees().lanes()),
                8, 0);
        ExecutorService io = Executors.newFixedThreadPool(4);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(fabricFor(engine)), o);
             NodeChannels channels = new NodeChannels()) {
            FanOut fanOut = new FanOut(channels, io, 4);
            Discovery.Result d = new Discovery(fanOut).discover(fabric.endpoint(fabric.hosts().get(0).name()));
            LidAssignment lids = LidAssigner.assign(d.fabric());
            HeavySweep sweep = new HeavySweep(fanOut, 0);

            ForwardingTables t = route(engine, d.fabric(), lids);
            sweep.push(d, new EngineChain.Result(t, RoutingEngines.create(engine).guarantees(), List.of()));
            assertSameAsSimulated(fabric, t, o.vls(), s -> 1L, engine);

            ForwardingTables minhop = route("minhop", d.fabric(), lids);
            sweep.push(d, new EngineChain.Result(minhop, RoutingEngines.create("minhop").guarantees(), List.of()));
            // a switch whose tables do not change is not written again
            assertSameAsSimulated(fabric, minhop, o.vls(), s -> SwitchInstall.of(t, s, o.vls(), true)
                    .equals(SwitchInstall.of(minhop, s, o.vls(), true)) ? 1L : 2L, "minhop after " + engine);
        } finally {
            io.shutdownNow();
        }
    }

    /** Routes with {@code engine}; the file engine replays minhop's tables through a dump. */
    private static ForwardingTables route(String engine, Fabric f, LidAssignment lids) throws Exception {
        RoutingOptions options = RoutingOptions.DEFAULTS;
        if (engine.equals("file")) {
            StringWriter dump = new StringWriter();
            LftDumpWriter.write(RoutingEngines.create("minhop").route(new RoutingRequest(f, lids, options)), dump);
            options = options.withLftDump(LftDump.read(new StringReader(dump.toString()), "minhop.dump"));
        }
        RoutingEngine e = RoutingEngines.create(engine);
        return e.route(new RoutingRequest(f, lids, options));
    }

    private static void assertSameAsSimulated(EmulatedFabric fabric, ForwardingTables t, int vls, IntToLongFunction version, String what)
            throws Exception {
        Fabric f = t.fabric();
        for (int s = 0; s < f.switchCount(); s++) {
            String name = f.name(f.switchNode(s));
            SwitchTables pushed = fabric.node(name).management().tables().current();
            TableStore simulated = new TableStore(f.portCount(f.switchNode(s)));
            simulated.apply(TableInstall.batch(t, s, vls, true));
            assertSame(simulated.current(), pushed, t.lids().maxLid(), what + ", switch " + name);
            assertEquals(version.applyAsLong(s), pushed.version(), what + ", switch " + name + ": one write per push that changes it");
        }
    }

    /** Every field a switch forwards by: LFT and its top, SL-to-VL of every port pair, AR, direction ports, Dragonfly routing. */
    static void assertSame(SwitchTables want, SwitchTables got, int maxLid, String where) {
        assertEquals(want.lftTop(), got.lftTop(), where + ": LFT top");
        assertEquals(want.portCount(), got.portCount(), where);
        for (int b = 0; b <= maxLid / SwitchTables.BLOCK + 1; b++) {
            assertArrayEquals(want.block(b), got.block(b), where + ": LFT block " + b);
            assertArrayEquals(want.arBlock(b), got.arBlock(b), where + ": AR LFT block " + b);
        }
        for (int in = 0; in <= want.portCount(); in++) {
            for (int out = 0; out <= want.portCount(); out++) {
                for (int sl = 0; sl < SwitchTables.SERVICE_LEVELS; sl++) {
                    assertEquals(want.vl(in, out, sl), got.vl(in, out, sl), where + ": VL of SL " + sl + " from " + in + " to " + out);
                }
            }
        }
        assertEquals(want.arEnabled(), got.arEnabled(), where + ": AR on");
        assertEquals(want.arGroupTop(), got.arGroupTop(), where + ": AR groups");
        for (int g = 1; g <= want.arGroupTop(); g++) {
            assertArrayEquals(want.arPorts(g), got.arPorts(g), where + ": AR group " + g);
            assertArrayEquals(want.arDetours(g), got.arDetours(g), where + ": AR group " + g + "'s detours");
        }
        assertArrayEquals(want.arStaticInputs(), got.arStaticInputs(), where + ": static input ports");
        assertArrayEquals(want.directionPorts(), got.directionPorts(), where + ": direction ports");
        assertEquals(want.dragonfly(), got.dragonfly(), where + ": Dragonfly routing");
    }
}
