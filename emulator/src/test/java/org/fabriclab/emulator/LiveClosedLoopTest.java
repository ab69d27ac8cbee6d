package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Closed-loop jobs on the live hosts: the simulator's {@code ClosedLoop}, shared by each job's
 * hosts. A ping-pong, a barrier of 3, a broadcast of 3 (whose iterations end at a rank other
 * than 0 and are posted to it), an all-to-all of 3, a ring allreduce of 3, a halo3d of 8 and a
 * sweep3d of 4 run side by side; stopped, the messages in flight arrive and the counters settle,
 * and then add up exactly: a round trip is two messages, a barrier of 3 (two rounds) six, a
 * broadcast of 3 two, an all-to-all of 3 six, an allreduce of 3 (four steps) twelve, a halo3d of 8
 * (a 2 x 2 x 2 grid, three neighbours each) 24, a sweep3d of 4 (a 2 x 2 grid: four sweeps of two
 * blocks over four links) 32, with at most two iterations under way (halo3d and sweep3d: a rank
 * waits only for its neighbours, so as many as the grid has hops, 3 and 2, plus one); only rank 0's
 * host counts iterations. At 1 Gbps a frame keeps its link busy past the event loop's slack, and a
 * wake-up frees it; at 100 Gbps (the default) it is free at once, and only the end of the event
 * that sent it flushes it: the loop's first messages and those posted to another host are such
 * events too (they never left at 100 Gbps when they were posted as plain tasks).
 */
class LiveClosedLoopTest {
    @ParameterizedTest(name = "{0} Gbps")
    @ValueSource(doubles = {1, 100})
    void closedLoopJobsRunOnTheLiveHostsAndTheirCountsAddUp(double linkGbps) throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=8,levels=2");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS))
                .tables();
        int n = f.endpointCount();
        List<Simulation.Job> jobs = List.of(
                job("pp", new int[] {0, n - 1}, ClosedLoop.Kind.PING_PONG, 2),
                job("bar", new int[] {1, 3, 5}, ClosedLoop.Kind.BARRIER, 1),
                job("bc", new int[] {2, 4, 6}, ClosedLoop.Kind.BROADCAST, 3),
                job("a2a", new int[] {8, 10, 12}, ClosedLoop.Kind.ALL_TO_ALL, 2),
                job("ar", new int[] {7, 9, 11}, ClosedLoop.Kind.ALLREDUCE, 1),
                job("halo", new int[] {13, 14, 15, 16, 17, 18, 19, 20}, ClosedLoop.Kind.HALO3D, 2),
                job("sweep", new int[] {21, 22, 23, 24}, ClosedLoop.Kind.SWEEP3D, 1));
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLinkGbps(linkGbps);
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            LiveHost[] host = LiveHosts.activate(fabric, f, tables, o.vls());
            fabric.startJobs(jobs, 256, tables);
            Waits.until("every job's iterations", () -> jobs.stream().allMatch(j -> LiveHosts.node(host, j.hosts()[0], PortCounterArray.JOB_ITERATIONS) >= 20));
            long before = LiveHosts.node(host, 0, PortCounterArray.JOB_ITERATIONS);
            Waits.until("the ping-pong goes on", () -> LiveHosts.node(host, 0, PortCounterArray.JOB_ITERATIONS) > before + 20);
            fabric.stopTraffic();
            LiveHosts.waitUntilQuiet(host);
            int[] perIteration = {2, 6, 2, 6, 12, 24, 32};
            int[] underWay = {2, 2, 2, 2, 2, 4, 3};
            for (int j = 0; j < jobs.size(); j++) {
                int[] ranks = jobs.get(j).hosts();
                long iterations = LiveHosts.node(host, ranks[0], PortCounterArray.JOB_ITERATIONS);
                long messages = 0;
                for (int r = 0; r < ranks.length; r++) {
                    messages += LiveHosts.node(host, ranks[r], PortCounterArray.JOB_MESSAGES);
                    if (r > 0) {
                        assertEquals(0, LiveHosts.node(host, ranks[r], PortCounterArray.JOB_ITERATIONS), jobs.get(j).name() + ": rank 0 counts them");
                    }
                }
                String what = jobs.get(j).name() + ": " + messages + " messages, " + iterations + " iterations";
                assertTrue(messages >= perIteration[j] * iterations && messages < perIteration[j] * (iterations + underWay[j]), what);
                long ns = LiveHosts.node(host, ranks[0], PortCounterArray.JOB_ITERATION_NS);
                assertTrue(ns > 0, what);
            }
            assertTrue(LiveHosts.node(host, 0, PortCounterArray.JOB_ITERATION_NS) >= LiveHosts.node(host, n - 1, PortCounterArray.JOB_MESSAGE_NS),
                    "a round trip takes longer than its ping");
        }
    }

    private static Simulation.Job job(String name, int[] hosts, ClosedLoop.Kind kind, int packets) {
        return new Simulation.Job(name, hosts, TrafficPattern.UNIFORM, 0.1, RoutingMode.DEFAULT, packets, false, kind);
    }
}
