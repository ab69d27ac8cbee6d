package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * Bursty flows ({@link Simulation.Flow#inMessages}) on the RL-CC paper's all-to-all: hosts 0..7 of
 * one 100 Gb/s switch each send to the other seven, in messages of 64 packets. Streams evenly
 * paced congest nothing (each host's NIC takes its seven flows round-robin, every receiver gets
 * exactly its link); messages at random (Poisson) make bursts that meet at the receivers, where
 * queues build, DCQCN's switch marks and its receivers send CNPs.
 */
class BurstyFlowsSimulationTest {
    private static final int HOSTS = 8;
    private static final int MESSAGE = 64;
    private static final long DURATION = 500_000;

    private static Simulation.Builder allToAll(String cc, int messagePackets, long gapNs) throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=32,levels=1");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        List<Simulation.Flow> flows = Simulation.Flow.allToAll(HOSTS, DURATION).stream()
                .map(fl -> messagePackets == 0 ? fl : fl.inMessages(messagePackets, gapNs)).toList();
        return Simulation.Config.builder(f, t).load(0.8 / (HOSTS - 1)).bufferPackets(32).outputBufferPackets(1024)
                .sourceQueuePackets(7 * 1024).durationNs(DURATION).flows(flows).cc(CongestionControl.settings(cc, Map.of()));
    }

    @Test
    void randomBurstsBuildQueuesAtTheReceiversWhereStreamsBuildNone() throws Exception {
        Simulation.Report streams = Simulation.run(allToAll("none", 0, 0).build());
        assertNull(streams.messages(), "streams report no messages");
        assertTrue(streams.networkLatencyMeanNs() < 400, "no queue: the unloaded path's 0.31 us, " + streams.networkLatencyMeanNs() + " ns");
        Simulation.Report bursts = Simulation.run(allToAll("none", MESSAGE, 0).build());
        assertTrue(bursts.networkLatencyMeanNs() > 5 * streams.networkLatencyMeanNs(), "bursts queue at the receivers: "
                + bursts.networkLatencyMeanNs() + " ns against " + streams.networkLatencyMeanNs());
        Simulation.Messages m = bursts.messages();
        assertEquals(0, m.ecnMarked(), "no marking without DCQCN");
        assertTrue(m.completed() > 100, "messages complete: " + m.completed());
        double alone = MESSAGE * 293 * 8 / 100.0; // the frames' time at the line rate
        assertTrue(m.meanNs() >= alone && m.p99Ns() >= m.meanNs(), "no faster than alone; p99 at least the mean: " + m);
        assertEquals(HOSTS * (HOSTS - 1), m.flowMeanNs().length);
        assertTrue(Arrays.stream(m.flowNetworkLatencyNs()).allMatch(x -> x > 0), "every flow measured");

        Simulation.Report dcqcn = Simulation.run(allToAll("dcqcn", MESSAGE, 0).build());
        assertTrue(dcqcn.messages().ecnMarked() > 0 && dcqcn.messages().cnpsReceived() > 0,
                "the receivers' queues pass DCQCN's thresholds: " + dcqcn.messages());
        assertTrue(dcqcn.networkLatencyMeanNs() < bursts.networkLatencyMeanNs(), "and DCQCN shortens them: "
                + dcqcn.networkLatencyMeanNs() + " ns against " + bursts.networkLatencyMeanNs());
        assertEquals(0, dcqcn.packetsDropped());
    }

    /** Messages every gap, every flow in step: each host's round robin spreads its seven bursts evenly, and nothing queues. */
    @Test
    void synchronisedBurstsSpreadEvenlyByTheRoundRobin() throws Exception {
        Simulation.Report r = Simulation.run(allToAll("none", MESSAGE, 20_000).build());
        double[] gbps = r.phases().get(0).flowGbps();
        double first = gbps[0];
        assertTrue(Arrays.stream(gbps).allMatch(g -> Math.abs(g - first) < 1e-9), "every flow the same: " + Arrays.toString(gbps));
        assertEquals(MESSAGE * 293 * 8 / 20_000.0, first, 0.2, "a message's frames every 20 us");
        assertTrue(r.networkLatencyMeanNs() < 500, "no queue: " + r.networkLatencyMeanNs() + " ns");
        assertEquals(0, r.packetsRefused());
    }

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnother() throws Exception {
        Simulation.Report a = Simulation.run(allToAll("swift", MESSAGE, 0).seed(3).build());
        Simulation.Report b = Simulation.run(allToAll("swift", MESSAGE, 0).seed(3).build());
        assertArrayEquals(a.phases().get(0).flowGbps(), b.phases().get(0).flowGbps());
        assertEquals(a.messages().completed(), b.messages().completed());
        assertEquals(a.messages().meanNs(), b.messages().meanNs());
        assertArrayEquals(a.messages().flowNetworkLatencyNs(), b.messages().flowNetworkLatencyNs());
        assertEquals(a.events(), b.events());
        Simulation.Report c = Simulation.run(allToAll("swift", MESSAGE, 0).seed(4).build());
        assertNotEquals(a.events(), c.events(), "another seed draws other messages");
    }

    @Test
    void aMessageLargerThanItsFlowsSourceQueueIsRefused() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> allToAll("none", 1025, 0).build());
        assertTrue(e.getMessage().contains("1025 packets") && e.getMessage().contains("(1024 packets"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> allToAll("none", -1, 0).build());
    }
}
