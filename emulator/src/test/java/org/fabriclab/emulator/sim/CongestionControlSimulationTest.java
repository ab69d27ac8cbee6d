package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.Swift;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.analysis.Fairness;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * NIC congestion control in the simulator, on the RL-CC paper's many-to-one: N hosts of one 100 Gb/s
 * switch send to one host at the line rate; the switch has output buffers (1,024 packets a port and
 * lane) for a queue to build. DCQCN, Swift and RL-CC (its shipped policy) share the bottleneck fairly and keep its queue short;
 * without congestion control the simulator runs as before.
 */
class CongestionControlSimulationTest {
    private static final String SINGLE_SWITCH = "fat-tree:k=32,levels=1";

    private static Simulation.Builder manyToOne(int n, String cc, long durationNs) throws Exception {
        Fabric f = Topologies.generate(SINGLE_SWITCH);
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        List<Simulation.Flow> flows = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            flows.add(new Simulation.Flow(i, 0, 0, durationNs));
        }
        return Simulation.Config.builder(f, t).load(1).bufferPackets(32).outputBufferPackets(1024).durationNs(durationNs)
                .flows(flows).cc(CongestionControl.settings(cc, Map.of()));
    }

    @ParameterizedTest(name = "{0} with {1} flows")
    @CsvSource({"dcqcn, 2", "dcqcn, 4", "dcqcn, 16", "swift, 2", "swift, 4", "swift, 16", "rl-cc, 2", "rl-cc, 4", "rl-cc, 16"})
    void convergesToFairSharesOfTheBottleneck(String cc, int n) throws Exception {
        Simulation.Report r = Simulation.run(manyToOne(n, cc, 2_000_000).build());
        double[] gbps = r.phases().get(0).flowGbps();
        double cov = Fairness.coefficientOfVariation(gbps);
        assertTrue(cov < 0.1, cc + ", " + n + " flows: CoV " + cov + " of " + Arrays.toString(gbps));
        assertTrue(Arrays.stream(gbps).sum() <= 100, "never above the bottleneck: " + Arrays.toString(gbps));
        Simulation.Report none = Simulation.run(manyToOne(n, "none", 2_000_000).build());
        assertTrue(r.networkLatencyMeanNs() < none.networkLatencyMeanNs() / 5, cc + " keeps the queue short: " + r.networkLatencyMeanNs()
                + " ns against " + none.networkLatencyMeanNs() + " ns without congestion control");
        assertEquals(0, r.packetsDropped());
    }

    @Test
    void swiftKeepsTheBottleneckFullAtItsTargetDelay() throws Exception {
        Simulation.Report r = Simulation.run(manyToOne(4, "swift", 2_000_000).build());
        double sum = Arrays.stream(r.phases().get(0).flowGbps()).sum();
        assertTrue(sum > 95, "Swift's window keeps the link busy: " + sum + " Gb/s");
        assertTrue(r.networkLatencyMeanNs() > 2_000 && r.networkLatencyMeanNs() < 6_000,
                "the queue's delay near the 4 us target: " + r.networkLatencyMeanNs() + " ns");
    }

    /**
     * {@code ack-only} is a transport's ACKs without a control: every data packet is acknowledged,
     * the flows send as they do without congestion control (the same data through the bottleneck)
     * and the queue builds as it does without (no control keeps it short).
     */
    @Test
    void ackOnlyAcknowledgesEveryPacketAndControlsNothing() throws Exception {
        List<Simulation.Flow> finite = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            finite.add(new Simulation.Flow(i, 0, 0, 1_000_000, 200));
        }
        Simulation.Report all = Simulation.run(manyToOne(4, "ack-only", 1_000_000).flows(finite).build());
        assertEquals(800, all.hostPackets() - all.controlPackets(), "every data packet sent");
        assertEquals(800, all.controlPackets(), "an ACK for each");
        Simulation.Report acked = Simulation.run(manyToOne(4, "ack-only", 1_000_000).build());
        Simulation.Report none = Simulation.run(manyToOne(4, "none", 1_000_000).build());
        double gbps = Arrays.stream(acked.phases().get(0).flowGbps()).sum();
        double noneGbps = Arrays.stream(none.phases().get(0).flowGbps()).sum();
        assertEquals(noneGbps, gbps, noneGbps * 0.01, "the bottleneck carries what it carries without congestion control");
        assertTrue(acked.networkLatencyMeanNs() > none.networkLatencyMeanNs() * 0.9, "nothing keeps the queue short: "
                + acked.networkLatencyMeanNs() + " ns against " + none.networkLatencyMeanNs() + " ns without congestion control");
    }

    /**
     * Credits count 64-byte blocks: Swift's ACK per data packet takes a block of a buffer, not a
     * packet's slot, so on a 64-host 3-level tree under uniform traffic with the default 8-packet
     * buffers Swift carries what the tree carries without congestion control (with packet-counted
     * credits its ACKs filled the buffers it shares with data: 0.261 against 0.304 over 200 us).
     */
    @Test
    void swiftsAcksTakeABlockOfABufferNotAPacketsSlot() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=3");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Simulation.Builder b = Simulation.Config.builder(f, t).pattern(TrafficPattern.UNIFORM).load(0.3).durationNs(100_000);
        Simulation.Report none = Simulation.run(b.build());
        Simulation.Report swift = Simulation.run(b.cc(CongestionControl.settings("swift", Map.of())).build());
        assertTrue(swift.controlPackets() > swift.packetsDelivered() / 2, "an ACK per data packet: " + swift.controlPackets());
        assertEquals(none.throughput(), swift.throughput(), 0.01 * none.throughput(),
                "Swift carries the tree's load: " + swift.throughput() + " against " + none.throughput());
        assertEquals(0, swift.packetsRefused());
        assertTrue(swift.latencyMeanNs() < 2 * none.latencyMeanNs(), "no packets held at the sources behind full buffers: "
                + swift.latencyMeanNs() + " ns against " + none.latencyMeanNs());
    }

    /**
     * Swift's one target on a two-level fat tree favours the flow whose path is shortest, not any
     * host number: {@code fat-tree:k=4,levels=2} hangs endpoint {@code e} off leaf {@code e mod 4}
     * (the XGFT labels' order), so of hosts 1 to 4 sending to host 0 only host 4 is on the
     * receiver's leaf. Its unloaded RTT is half a remote one's (one switch each way against three),
     * so at the queue where its RTT meets the target a remote flow's is above it: the local flow
     * grows while the remote ones are cut. Topology-based scaling of more than that difference per
     * switch (1 us here; the two paths differ by two switches and 454 ns) turns the order round.
     * Receiving at host 1 instead moves the favour to host 5, its leaf's other sender.
     */
    @ParameterizedTest(name = "receiver {0}")
    @CsvSource({"0", "1"})
    void swiftsOneTargetFavoursTheFlowFromTheReceiversLeafAndHopScalingTurnsItRound(int receiver) throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        int local = receiver + 4;
        int[] remote = {(receiver + 1) % 4, (receiver + 2) % 4, (receiver + 3) % 4};
        assertEquals(f.endpointSwitch(receiver), f.endpointSwitch(local), "endpoint " + local + " shares the receiver's leaf");
        List<Simulation.Flow> flows = new ArrayList<>();
        for (int src : remote) {
            assertTrue(f.endpointSwitch(src) != f.endpointSwitch(receiver), "endpoint " + src + " is on another leaf");
            flows.add(new Simulation.Flow(src, receiver, 0, 2_000_000));
        }
        flows.add(new Simulation.Flow(local, receiver, 0, 2_000_000));
        Simulation.Builder b = Simulation.Config.builder(f, t).load(1).bufferPackets(32).outputBufferPackets(1024).durationNs(2_000_000)
                .flows(flows);
        double[] one = Simulation.run(b.cc(CongestionControl.settings("swift", Map.of())).build()).phases().get(0).flowGbps();
        double[] scaled = Simulation.run(b.cc(CongestionControl.settings("swift", Map.of("hop_scale_us", "1"))).build())
                .phases().get(0).flowGbps();
        for (int i = 0; i < remote.length; i++) {
            assertTrue(one[3] > one[i], "one target: the local flow ahead of every remote one: " + Arrays.toString(one));
            assertTrue(scaled[3] < scaled[i], "1 us a switch: the local flow behind every remote one: " + Arrays.toString(scaled));
        }
    }

    /**
     * A queue pair per flow: host 1 sends half the line rate to host 0, congested by hosts 2..8
     * sending to it too, and half to the idle host 9. Its congestion control paces the flow to host
     * 0 to an eighth of the bottleneck; that flow's packets wait in its own source queue and take
     * at most half the NIC's send queue, so the flow to host 9 still gets its whole half (with one
     * source queue per host the paced flow's packets filled it and the flow to host 9 got 0.2 to 8
     * Gb/s). No packet overtakes an earlier one of its flow.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"dcqcn", "swift", "rl-cc"})
    void aPacedFlowDoesNotHoldBackAnotherFlowOfItsHost(String cc) throws Exception {
        Simulation.Builder b = manyToOne(8, cc, 2_000_000).load(0.5);
        List<Simulation.Flow> flows = new ArrayList<>(b.build().flows());
        flows.add(new Simulation.Flow(1, 9, 0, 2_000_000));
        Simulation.Report r = Simulation.run(b.flows(flows).build());
        double[] gbps = r.phases().get(0).flowGbps();
        assertTrue(gbps[8] > 45, cc + ": the flow to the idle host gets its 50 Gb/s: " + Arrays.toString(gbps));
        double[] congested = Arrays.copyOf(gbps, 8);
        assertTrue(Arrays.stream(congested).sum() <= 100, "never above the bottleneck: " + Arrays.toString(gbps));
        assertTrue(gbps[0] > 100.0 / 8 / 2, cc + ": the paced flow keeps a share of the bottleneck: " + Arrays.toString(gbps));
        assertEquals(0, r.outOfOrder(), "every flow's packets in order");
        assertEquals(0, r.packetsDropped());
    }

    /**
     * A flow's tail with coalesced ACKs: host 1 sends 1,001 packets to host 0 with an ACK every four
     * (and every eight), so its last packet can only be acknowledged by the receiver's timer. When the
     * run ends the receiver holds nothing unacknowledged and the sender's Swift has nothing in flight
     * (RL-CC: no ACK left pending); the ACKs were a quarter (an eighth) of the packets, give or take the timers'.
     */
    @ParameterizedTest(name = "{0}, ack_every={1}")
    @CsvSource({"swift, 4", "swift, 8", "rl-cc, 4", "ack-only, 4"})
    void aFlowsTailIsAcknowledgedByTheReceiversTimer(String cc, int every) throws Exception {
        int packets = 1_001;
        Simulation.Builder b = manyToOne(1, cc, 1_000_000).flows(List.of(new Simulation.Flow(1, 0, 0, 1_000_000, packets)))
                .cc(CongestionControl.settings(cc, Map.of("ack_every", String.valueOf(every))));
        Simulation.Config c = b.build();
        Simulation sim = Simulation.ranToEnd(c);
        int sender = c.tables().lids().endpointLid(1);
        int receiver = c.tables().lids().endpointLid(0);
        assertEquals(0, sim.hostCore(0).ackPending(sender), "the receiver left nothing unacknowledged");
        if (sim.hostCore(1).congestionControl() instanceof Swift swift) {
            assertEquals(0, swift.inflight(receiver), "the sender's window saw every packet acknowledged, the last too");
        }
        Simulation.Report r = Simulation.run(c);
        assertEquals(packets, r.hostPackets() - r.controlPackets(), "every packet sent");
        assertTrue(r.controlPackets() >= (packets + every - 1) / every && r.controlPackets() < 2.0 * packets / every,
                r.controlPackets() + " ACKs for " + packets + " packets, one every " + every);
    }

    /** The report of the same run before congestion control existed (commit c6cc31d's simulator): unchanged without it. */
    @Test
    void withoutCongestionControlTheSimulatorRunsAsBefore() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=3");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Simulation.Config c = new Simulation.Config(f, t, TrafficPattern.UNIFORM, 0.6, 100, 100, 2, 8, 256, 60_000, 10_000, 7);
        Simulation.Report r = Simulation.run(c);
        assertEquals(1_483_215, r.events());
        assertEquals(67_692, r.packetsDelivered());
        assertEquals(5852.852360692548, r.latencyMeanNs());
        assertEquals(13_439, r.latencyP99Ns());
        Simulation.Report again = Simulation.run(c.toBuilder().cc(null).build());
        assertEquals(r.events(), again.events());
        assertEquals(r.latencyMeanNs(), again.latencyMeanNs());
    }
}
