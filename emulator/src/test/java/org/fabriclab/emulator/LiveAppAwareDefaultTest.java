package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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
import org.junit.jupiter.api.Test;

/**
 * Application-aware routing on the live hosts weighs the pattern's default against the high bias,
 * whichever kind of job it is (the live side of {@code JobSimulationTest}'s check): a closed-loop
 * alltoall's and an open-loop all-to-all's packets carry {@code ADAPTIVE_1} or the high bias, never
 * {@code ADAPTIVE_0} (until 2026-11-27 the closed-loop alltoall weighed {@code ADAPTIVE_0}); a
 * closed-loop allreduce's {@code ADAPTIVE_0} or the high bias, never {@code ADAPTIVE_1}. Each job's
 * messages are 8 KiB, past the chooser's 4 KiB between counter reads, so a host's first message is
 * decided with nothing measured yet and goes with its default: each job's default is seen. The modes
 * are the receivers' counts of the job's packets by the mode they carried
 * ({@link PortCounterArray#JOB_MODE_PACKETS}), read once every packet sent has arrived.
 */
class LiveAppAwareDefaultTest {
    @Test
    void eachJobsPacketsCarryItsPatternsDefaultOrTheHighBias() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=8,levels=2");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS))
                .tables();
        int packets = 32; // of 256 bytes: 8 KiB messages
        List<Simulation.Job> jobs = List.of(
                new Simulation.Job("alltoall", new int[] {0, 9, 18}, TrafficPattern.UNIFORM, Double.NaN, RoutingMode.ADAPTIVE_0, packets,
                        true, ClosedLoop.Kind.ALL_TO_ALL),
                new Simulation.Job("allreduce", new int[] {1, 10, 19}, TrafficPattern.UNIFORM, Double.NaN, RoutingMode.ADAPTIVE_0, packets,
                        true, ClosedLoop.Kind.ALLREDUCE),
                new Simulation.Job("open", new int[] {2, 11, 20}, TrafficPattern.ALL_TO_ALL, 0.001, RoutingMode.ADAPTIVE_0, packets, true));
        RoutingMode[] expected = {RoutingMode.ADAPTIVE_1, RoutingMode.ADAPTIVE_0, RoutingMode.ADAPTIVE_1};
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS;
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            LiveHost[] host = LiveHosts.activate(fabric, f, tables, o.vls());
            fabric.startJobs(jobs, 256, tables);
            Waits.until("the loops' iterations and the open job's messages", () ->
                    LiveHosts.node(host, 0, PortCounterArray.JOB_ITERATIONS) >= 5 && LiveHosts.node(host, 1, PortCounterArray.JOB_ITERATIONS) >= 5
                            && jobTotal(host, jobs.get(2), PortCounterArray.JOB_MESSAGES) >= 6);
            fabric.stopTraffic();
            LiveHosts.waitUntilQuiet(host);
            for (int j = 0; j < jobs.size(); j++) {
                Simulation.Job job = jobs.get(j);
                Map<RoutingMode, Long> byMode = new EnumMap<>(RoutingMode.class);
                long all = 0;
                for (RoutingMode m : RoutingMode.values()) {
                    long n = jobTotal(host, job, PortCounterArray.JOB_MODE_PACKETS + m.code());
                    if (n > 0) {
                        byMode.put(m, n);
                        all += n;
                    }
                }
                String what = job.name() + ": packets by mode " + byMode;
                assertEquals(jobTotal(host, job, PortCounterArray.JOB_PACKETS), all, what);
                assertTrue(byMode.getOrDefault(expected[j], 0L) >= packets, "a host's first message at least: " + what);
                byMode.remove(expected[j]);
                byMode.remove(RoutingMode.ADAPTIVE_3);
                assertEquals(Map.of(), byMode, "only " + expected[j] + " and the high bias: " + what);
            }
        }
    }

    /** Node counter {@code counter} summed over {@code job}'s hosts. */
    private static long jobTotal(LiveHost[] host, Simulation.Job job, int counter) {
        long sum = 0;
        for (int e : job.hosts()) {
            sum += LiveHosts.node(host, e, counter);
        }
        return sum;
    }
}
