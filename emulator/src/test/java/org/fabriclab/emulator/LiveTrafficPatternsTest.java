package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * Every traffic pattern runs on the live hosts (the simulator's run in {@code SimulationTest}):
 * on a small dragonfly (three groups of two hosts), each host sends a fixed number of packets as
 * fast as credits allow, and the receivers' sinks show the pattern's pairs: all-to-all a share of
 * every other host, permutation one source each, group-shift sources of the previous group only,
 * adv+2 of the group after; and the hosts' routing mode steers a Dragonfly's routing live.
 */
class LiveTrafficPatternsTest {
    private static final int PACKETS = 20;

    @Test
    void everyPatternRunsLive() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=2,h=1");
        // up/down, not minhop: this dragonfly is a ring of six switches, on which minhop's routes on one lane close a credit
        // loop, and the adversarial patterns (every packet the same way round) can fill it and deadlock, as a loaded machine's
        // timing once let them
        ForwardingTables tables = EngineChain.parse("updn").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        int hosts = f.endpointCount();
        try (EmulatedFabric fabric = routed(f, tables, 1)) {
            LiveHost[] host = hosts(fabric, f);
            int[] lid = lids(f, tables);
            long[][] before = pairs(host, lid);
            List<TrafficPattern> patterns = new ArrayList<>(TrafficPattern.named());
            patterns.add(TrafficPattern.adversarial(2)); // three groups: adv+2 is the previous group
            for (TrafficPattern p : patterns) {
                fabric.startTraffic(p, 0, 256, PACKETS, tables);
                long sent = total(before) + (long) hosts * PACKETS;
                Waits.until(p + ": every packet arrived", () -> total(pairs(host, lid)) >= sent);
                long[][] after = pairs(host, lid);
                assertEquals((long) hosts * PACKETS, total(after) - total(before), p + ": every packet arrived");
                for (int dst = 0; dst < hosts; dst++) {
                    int sources = 0;
                    for (int src = 0; src < hosts; src++) {
                        long n = after[dst][src] - before[dst][src];
                        sources += n > 0 ? 1 : 0;
                        String where = p + ": host " + src + " to host " + dst;
                        if (src == dst) {
                            assertEquals(0, n, where);
                        } else if (p.equals(TrafficPattern.ALL_TO_ALL)) {
                            assertEquals(PACKETS / (hosts - 1), n, where + ": every other host in turn");
                        } else if (p.kind() == TrafficPattern.Kind.ADVERSARIAL && n > 0) {
                            assertEquals((group(f, src) + p.shift()) % 3, group(f, dst), where + ": to the group " + p.shift() + " on only");
                        }
                    }
                    if (p.equals(TrafficPattern.PERMUTATION)) {
                        assertEquals(1, sources, p + ": host " + dst + " hears from one host");
                    }
                }
                for (LiveHost h : host) {
                    assertEquals(0, h.stats().join().outOfOrder(), p + ": one path per pair keeps order");
                }
                before = after;
            }
            LiveHost.Stats s = host[0].stats().join();
            assertTrue(s.latencyP99Ns() >= s.latencyP95Ns() && s.latencyP95Ns() > 0, "percentiles " + s);
        }
    }

    /**
     * {@code stop} ends the creation of packets, not their journey: the ones already made (the
     * source queue filled at once for a count-limited flood) still go, moved on by the NIC's credit
     * and link events. Slow links keep most of them queued when the test stops the host.
     */
    @Test
    void stopLetsThePacketsAlreadyMadeGo() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=2,h=1");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        try (EmulatedFabric fabric = routed(f, tables, 0.01)) {
            LiveHost[] host = hosts(fabric, f);
            int[] lid = lids(f, tables);
            int packets = 200; // made at once: fewer than the source queue holds
            host[0].start(new Traffic(new int[] {lid[1]}, TrafficPattern.ALL_TO_ALL, 0, 256, packets, 1));
            Waits.until("the first packets sent", () -> host[0].stats().join().sent() > 0);
            host[0].stop();
            Waits.until("every packet made before the stop arrived", () -> host[1].receivedFrom(lid[0]).join()[0] == packets);
            assertEquals(packets, host[0].stats().join().sent());
        }
    }

    /**
     * The hosts' routing mode on live links (issue 19): under UGALg every packet asking for
     * NMIN_HASH goes through an intermediate group, every one asking for MIN_HASH minimally, all
     * delivered; the switches' adaptive decisions show it, as the simulator's do.
     */
    @Test
    void theHostsRoutingModeSteersTheLiveSwitchesDragonflyRouting() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=2,h=1");
        ForwardingTables tables = new DragonflyEngine(DragonflyAlgorithm.UGALG).route(
                new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS));
        try (EmulatedFabric fabric = routed(f, tables, EmulatedFabric.Options.DEFAULTS.withLinkGbps(1)
                .withLanes(DragonflyAlgorithm.UGALG.vcs(), 8, 0))) {
            LiveHost[] host = hosts(fabric, f);
            int[] lid = lids(f, tables);
            long delivered = 0;
            long[] decisions = decisions(fabric, f);
            for (RoutingMode m : new RoutingMode[] {RoutingMode.NMIN_HASH, RoutingMode.MIN_HASH}) {
                fabric.startTraffic(TrafficPattern.GROUP_SHIFT, 0, 256, PACKETS, tables, m);
                long expected = delivered + (long) host.length * PACKETS;
                Waits.until(m + ": every packet arrived", () -> total(pairs(host, lid)) >= expected);
                delivered = expected;
                long[] now = decisions(fabric, f);
                long minimal = now[0] - decisions[0];
                long nonminimal = now[1] - decisions[1];
                assertEquals((long) host.length * PACKETS, minimal + nonminimal, m + ": one decision per packet, at its source router");
                assertEquals(m == RoutingMode.NMIN_HASH ? 0 : minimal + nonminimal, minimal, m.name());
                decisions = now;
            }
        }
    }

    /** The switches' adaptive decisions so far: minimal, non-minimal. */
    private static long[] decisions(EmulatedFabric fabric, Fabric f) {
        long[] d = new long[2];
        for (int s = 0; s < f.switchCount(); s++) {
            var c = fabric.node(f.name(f.switchNode(s))).management().counters();
            d[0] += c.getNode(PortCounterArray.ADAPTIVE_MINIMAL);
            d[1] += c.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
        }
        return d;
    }

    /** A live fabric of {@code f} at {@code linkGbps}, its switches holding {@code tables}, every host's port active with its LID. */
    private static EmulatedFabric routed(Fabric f, ForwardingTables tables, double linkGbps) throws Exception {
        return routed(f, tables, EmulatedFabric.Options.DEFAULTS.withLinkGbps(linkGbps));
    }

    /** A live fabric of {@code f} with options {@code o}, its switches holding {@code tables}, every host's port active with its LID. */
    private static EmulatedFabric routed(Fabric f, ForwardingTables tables, EmulatedFabric.Options o) throws Exception {
        EmulatedFabric fabric = EmulatedFabric.start(f, o);
        try {
            for (int s = 0; s < f.switchCount(); s++) {
                fabric.node(f.name(f.switchNode(s))).management().tables().apply(TableInstall.batch(tables, s, o.vls(), false));
            }
            for (int e = 0; e < f.endpointCount(); e++) {
                LiveHost h = (LiveHost) fabric.node(f.name(f.endpointNode(e)));
                h.management().setPort(1, tables.lids().endpointLid(e), PortState.PORT_STATE_ARMED);
                h.management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            }
            return fabric;
        } catch (Exception | Error e) {
            fabric.close();
            throw e;
        }
    }

    private static LiveHost[] hosts(EmulatedFabric fabric, Fabric f) {
        LiveHost[] host = new LiveHost[f.endpointCount()];
        for (int e = 0; e < host.length; e++) {
            host[e] = (LiveHost) fabric.node(f.name(f.endpointNode(e)));
        }
        return host;
    }

    private static int[] lids(Fabric f, ForwardingTables tables) {
        int[] lid = new int[f.endpointCount()];
        for (int e = 0; e < lid.length; e++) {
            lid[e] = tables.lids().endpointLid(e);
        }
        return lid;
    }

    /** Its group's rank among the fabric's groups (numbered 0.. here). */
    private static int group(Fabric f, int e) {
        return f.group(f.endpointNode(e)) - f.group(f.endpointNode(0));
    }

    /** Per receiver, per sender: packets received so far. */
    private static long[][] pairs(LiveHost[] host, int[] lid) {
        long[][] out = new long[host.length][host.length];
        for (int dst = 0; dst < host.length; dst++) {
            for (int src = 0; src < host.length; src++) {
                out[dst][src] = host[dst].receivedFrom(lid[src]).join()[0];
            }
        }
        return out;
    }

    private static long total(long[][] x) {
        long n = 0;
        for (long[] row : x) {
            for (long v : row) {
                n += v;
            }
        }
        return n;
    }
}
