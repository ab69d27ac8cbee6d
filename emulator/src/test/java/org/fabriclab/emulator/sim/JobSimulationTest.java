package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.Placement;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import org.junit.jupiter.api.Test;

/**
 * Several jobs on one fabric (issue 19), on {@link DragonflySimulationTest}'s 72-host dragonfly:
 * each job's report is its own and they add up to the run's, messages complete, and a job
 * shares the network with another: an aggressor slows a victim.
 */
class JobSimulationTest {
    private static int[] hosts(int from, int to) {
        return IntStream.range(from, to).toArray();
    }

    private static Simulation.Report run(List<Simulation.Job> jobs) throws Exception {
        return Simulation.run(DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 40_000, 0)
                .toBuilder().jobs(jobs).build());
    }

    @Test
    void theJobsReportsAddUpToTheRunsAndMessagesComplete() throws Exception {
        Simulation.Report r = run(List.of(
                new Simulation.Job("a", hosts(0, 16), TrafficPattern.ALL_TO_ALL, 0.2, RoutingMode.ADAPTIVE_0, 8),
                new Simulation.Job("b", hosts(16, 40), TrafficPattern.HALO3D, 0.3, RoutingMode.ADAPTIVE_3, 1)));
        assertEquals(2, r.jobs().size());
        Simulation.JobReport a = r.jobs().get(0);
        Simulation.JobReport b = r.jobs().get(1);
        assertEquals(r.packetsDelivered(), a.packetsDelivered() + b.packetsDelivered(), "every measured packet is one job's");
        // the run's throughput is over all 72 hosts, a job's over its own
        assertEquals(r.throughput() * 72, a.throughput() * 16 + b.throughput() * 24, 1e-9);
        assertEquals(r.offeredLoad() * 72, a.offeredLoad() * 16 + b.offeredLoad() * 24, 1e-9);
        assertEquals(0.2, a.offeredLoad(), 0.03);
        assertEquals(0.3, b.offeredLoad(), 0.03);
        assertEquals(a.offeredLoad(), a.throughput(), 0.05 * a.offeredLoad(), "a light load is carried");
        assertTrue(a.messagesCompleted() > 0 && a.messagesCompleted() <= a.packetsDelivered() / 8 + 16, "messages of 8 packets: " + a);
        assertTrue(a.messageMeanNs() > a.latencyMeanNs(), "a message ends with its last packet: " + a);
        assertEquals(b.packetsDelivered(), b.messagesCompleted(), "one-packet messages are packets");
        assertEquals(0, r.packetsDropped());
    }

    /**
     * The SC'19 performance model in the job report: L is the job's packets' network latency
     * (no source queue: at most their latency from creation), s their hosts' credit waits per
     * flit, and on a lightly loaded fabric the model's message time lies near the measured one
     * (within a fifth: what is left out is the source queue, empty at this load, and the spread
     * of a message's packets over paths).
     */
    @Test
    void theJobReportCarriesThePerformanceModelsEstimate() throws Exception {
        Simulation.Report r = run(List.of(new Simulation.Job("pp", hosts(0, 2), TrafficPattern.ALLREDUCE_RING, 0.1, RoutingMode.ADAPTIVE_0, 4)));
        Simulation.JobReport pp = r.jobs().get(0);
        assertTrue(pp.networkLatencyMeanNs() > 0 && pp.networkLatencyMeanNs() <= pp.latencyMeanNs(), pp.toString());
        assertTrue(pp.stallNsPerFlit() >= 0, pp.toString());
        assertTrue(pp.modelMessageNs() > pp.networkLatencyMeanNs(), "the model adds the message's serialisation: " + pp);
        assertTrue(pp.messagesCompleted() > 10, pp.toString());
        assertEquals(pp.messageMeanNs(), pp.modelMessageNs(), 0.2 * pp.messageMeanNs(), "model against measurement: " + pp);
    }

    @Test
    void aStrictlyMinimalModeTakesNoLongerPathAndNminHashNoShortOne() throws Exception {
        Simulation.Report r = run(List.of(
                new Simulation.Job("min", hosts(0, 24), TrafficPattern.UNIFORM, 0.3, RoutingMode.MIN_HASH, 1),
                new Simulation.Job("nmin", hosts(24, 48), TrafficPattern.UNIFORM, 0.3, RoutingMode.NMIN_HASH, 1)));
        assertEquals(0.0, r.jobs().get(0).nonMinimalShare());
        assertTrue(r.jobs().get(1).nonMinimalShare() > 0.5, "through an intermediate group: " + r.jobs().get(1));
    }

    /**
     * A victim's all-to-all interleaved over every group (so its packets cross global links),
     * alone, then beside an aggressor on every other host sending at full load through
     * intermediate groups (NMIN_HASH): the victim offers the same and still gets it through (the
     * arbiters share fairly), but its packets and messages wait behind the aggressor's on the
     * links they share.
     */
    @Test
    void anAggressorSlowsAVictim() throws Exception {
        Fabric f = DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 1000, 0).fabric();
        int[] groups = IntStream.range(0, 72).map(e -> f.group(f.endpointNode(e))).toArray();
        boolean[] taken = new boolean[72];
        SplittableRandom random = new SplittableRandom(1);
        Simulation.Job victim = new Simulation.Job("victim", Placement.INTERLEAVED.place(16, taken, groups, random),
                TrafficPattern.ALL_TO_ALL, 0.3, RoutingMode.ADAPTIVE_0, 4);
        Simulation.Job aggressor = new Simulation.Job("aggressor", Placement.CONTIGUOUS.place(56, taken, groups, random),
                TrafficPattern.UNIFORM, 1.0, RoutingMode.NMIN_HASH, 1);
        Simulation.JobReport alone = run(List.of(victim)).jobs().get(0);
        Simulation.JobReport shared = run(List.of(victim, aggressor)).jobs().get(0);
        String what = "alone " + alone + ", with the aggressor " + shared;
        System.out.println(what);
        assertEquals(alone.offeredLoad(), shared.offeredLoad(), 1e-9, "the same victim");
        assertTrue(shared.latencyMeanNs() > 1.3 * alone.latencyMeanNs(), what);
        assertTrue(shared.messageP99Ns() > 1.5 * alone.messageP99Ns(), what);
    }

    @Test
    void jobsThatShareAHostOrMixWithFlowsAreRefused() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 1000, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.toBuilder().jobs(List.of(
                new Simulation.Job("a", hosts(0, 10), TrafficPattern.UNIFORM, 0.2, RoutingMode.DEFAULT, 1),
                new Simulation.Job("b", hosts(9, 12), TrafficPattern.UNIFORM, 0.2, RoutingMode.DEFAULT, 1))).build());
        assertEquals("job b and job a share host 9", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> c.toBuilder().flows(List.of(new Simulation.Flow(1, 2, 0, 100)))
                .jobs(List.of(new Simulation.Job("a", hosts(0, 10), TrafficPattern.UNIFORM, 0.2, RoutingMode.DEFAULT, 1))).build());
    }

    private static Simulation.Job pingPong(int[] ranks, int messagePackets) {
        return new Simulation.Job("pp", ranks, TrafficPattern.UNIFORM, 1, RoutingMode.MIN_HASH, messagePackets, false,
                ClosedLoop.Kind.PING_PONG);
    }

    /**
     * A one-way message on an idle fabric between two hosts of one switch, the simulator's
     * store-and-forward model: each of the two host links costs the frame's time on the wire
     * (whole ns, rounded up) and the link's delay; a message of p packets ends p - 1 frame times
     * after its first packet's arrival.
     */
    private static double messageNs(Simulation.Config c, int host, int packets) {
        Fabric f = c.fabric();
        long frameNs = (long) Math.ceil((c.payloadBytes() + FrameSizes.DATA_HEADER) * 8 / c.linkGbps());
        long delay = f.linkDelayNs(f.endpointPort(host));
        return 2 * (frameNs + (delay >= 0 ? delay : c.latencyNs())) + (packets - 1) * frameNs;
    }

    /**
     * Ping-pong on an idle fabric (only the two ranks send): an iteration is two message latencies,
     * to the model's ns for one-packet messages between two hosts of one switch; between two
     * groups, two of its (longer) message times.
     */
    @Test
    void pingPongsIterationIsTwoMessageLatenciesOnAnIdleFabric() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        Simulation.Report r = Simulation.run(base.toBuilder().jobs(List.of(pingPong(new int[] {0, 1}, 1))).build());
        Simulation.JobReport near = r.jobs().get(0);
        assertEquals(0.0, r.meanHops(), "hosts 0 and 1 share a switch");
        assertTrue(near.iterations() > 10, near.toString());
        assertEquals(2 * messageNs(base, 0, 1), near.iterationMeanNs(), 1e-6, near.toString());
        assertEquals(2 * near.messageMeanNs(), near.iterationMeanNs(), 1e-6, "two messages per iteration");
        Simulation.JobReport far = Simulation.run(base.toBuilder().jobs(List.of(pingPong(new int[] {0, 71}, 1))).build()).jobs().get(0);
        assertEquals(2 * far.messageMeanNs(), far.iterationMeanNs(), 1e-6, far.toString());
        assertTrue(far.iterationMeanNs() > near.iterationMeanNs(), far + " against " + near);
        // a message of 8 packets: the last packet 7 frame times behind, within a tenth (the NIC's send queue paces the burst)
        Simulation.JobReport eight = Simulation.run(base.toBuilder().jobs(List.of(pingPong(new int[] {0, 1}, 8))).build()).jobs().get(0);
        assertEquals(2 * messageNs(base, 0, 8), eight.iterationMeanNs(), 0.1 * eight.iterationMeanNs(), eight.toString());
    }

    @Test
    void pingPongIsDeterministicAndOpenLoopJobsReportNoIterations() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 30_000, 0).toBuilder()
                .jobs(List.of(pingPong(new int[] {3, 40}, 4),
                        new Simulation.Job("noise", hosts(8, 32), TrafficPattern.ALL_TO_ALL, 0.6, RoutingMode.ADAPTIVE_0, 4))).build();
        Simulation.Report a = Simulation.run(c);
        Simulation.Report b = Simulation.run(c);
        assertEquals(a.jobs().get(0), b.jobs().get(0));
        assertEquals(a.jobs().get(1), b.jobs().get(1));
        assertTrue(a.jobs().get(0).iterations() > 0, a.jobs().get(0).toString());
        assertEquals(0, a.jobs().get(1).iterations());
    }

    private static Simulation.JobReport loop(Simulation.Config c, int[] ranks, ClosedLoop.Kind loop) {
        return Simulation.run(c.toBuilder().jobs(List.of(new Simulation.Job("b", ranks, TrafficPattern.UNIFORM, 1, RoutingMode.MIN_HASH, 1,
                false, loop))).build()).jobs().get(0);
    }

    private static Simulation.JobReport barrier(Simulation.Config c, int[] ranks) {
        return loop(c, ranks, ClosedLoop.Kind.BARRIER);
    }

    /**
     * The dissemination barrier on an idle fabric: two ranks of one switch take one round, a
     * message latency per barrier; four ranks two rounds, each at least that (two of its messages
     * cross switches); three ranks (not a power of two) two rounds too, and barriers keep completing.
     */
    @Test
    void aBarriersIterationIsItsRoundsMessageLatencies() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        Simulation.JobReport two = barrier(base, new int[] {0, 1});
        assertTrue(two.iterations() > 10, two.toString());
        assertEquals(messageNs(base, 0, 1), two.iterationMeanNs(), 1e-6, two.toString());
        Simulation.JobReport four = barrier(base, hosts(0, 4));
        assertTrue(four.iterations() > 10, four.toString());
        assertTrue(four.iterationMeanNs() >= 2 * messageNs(base, 0, 1) - 1e-6, four.toString());
        Simulation.JobReport three = barrier(base, hosts(0, 3));
        assertTrue(three.iterations() > 10 && three.iterationMeanNs() >= 2 * messageNs(base, 0, 1) - 1e-6, three.toString());
        assertEquals(three, barrier(base, hosts(0, 3)), "deterministic");
    }

    /**
     * A binomial broadcast on an idle fabric: of two ranks of one switch, one message latency per
     * iteration; of eight ranks (three levels of the tree), at least three.
     */
    @Test
    void aBroadcastsIterationIsItsTreesDepthInMessageLatencies() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        Simulation.JobReport two = loop(base, new int[] {0, 1}, ClosedLoop.Kind.BROADCAST);
        assertTrue(two.iterations() > 10, two.toString());
        assertEquals(messageNs(base, 0, 1), two.iterationMeanNs(), 1e-6, two.toString());
        Simulation.JobReport eight = loop(base, hosts(0, 8), ClosedLoop.Kind.BROADCAST);
        assertTrue(eight.iterations() > 10 && eight.iterationMeanNs() >= 3 * messageNs(base, 0, 1) - 1e-6, eight.toString());
        assertEquals(7 * eight.iterations(), eight.messagesCompleted(), 7.0 * 2, "n - 1 messages a broadcast: " + eight);
    }

    private static Simulation.JobReport pingPong(Simulation.Config c, RoutingMode mode, boolean appAware, int messagePackets) {
        return Simulation.run(c.toBuilder().jobs(List.of(new Simulation.Job("pp", new int[] {0, 71}, TrafficPattern.UNIFORM, 1, mode,
                messagePackets, appAware, ClosedLoop.Kind.PING_PONG))).build()).jobs().get(0);
    }

    /**
     * Application-aware routing chooses each closed-loop message's mode as an open-loop one's: the
     * share of its bytes sent with the default is reported (it was never asked before, NaN), and
     * one-packet messages on an idle fabric (below the chooser's threshold, no stalls to save) all
     * go with the high bias: the run is ADAPTIVE_3's, iteration for iteration.
     */
    @Test
    void applicationAwareRoutingChoosesEachClosedLoopMessagesMode() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.PAR, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        Simulation.JobReport large = pingPong(base, RoutingMode.ADAPTIVE_0, true, 16);
        assertTrue(large.iterations() > 10, large.toString());
        assertTrue(large.adaptiveShare() >= 0 && large.adaptiveShare() <= 1, "a share, not NaN: " + large);
        Simulation.JobReport small = pingPong(base, RoutingMode.ADAPTIVE_0, true, 1);
        Simulation.JobReport high = pingPong(base, RoutingMode.ADAPTIVE_3, false, 1);
        assertEquals(0.0, small.adaptiveShare(), small.toString());
        assertEquals(high.iterations(), small.iterations(), small + " against " + high);
        assertEquals(high.iterationMeanNs(), small.iterationMeanNs(), 1e-6, small + " against " + high);
    }

    /**
     * Application-aware routing weighs the pattern's default against the high bias, whichever kind
     * of job it is (the paper replaces Adaptive with Increasingly Minimal Bias for MPI_Alltoall):
     * on one fabric, a closed-loop alltoall (Figure 8's microbenchmark; until 2026-11-27 it weighed
     * ADAPTIVE_0) and an open-loop all-to-all send the bytes the high bias does not carry with
     * ADAPTIVE_1, a closed-loop allreduce with ADAPTIVE_0; the job report's share is of those bytes.
     * Eight ranks in eight groups' pairs of 64-packet messages: the choosers see stalls and take both
     * modes.
     */
    @Test
    void aClosedLoopAllToAllWeighsIncreasinglyMinimalBiasAsTheOpenLoopOneDoes() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 40_000, 0)
                .toBuilder().jobs(List.of(
                        new Simulation.Job("alltoall", IntStream.range(0, 8).map(i -> 9 * i).toArray(), TrafficPattern.UNIFORM, Double.NaN,
                                RoutingMode.ADAPTIVE_0, 64, true, ClosedLoop.Kind.ALL_TO_ALL),
                        new Simulation.Job("allreduce", IntStream.range(0, 8).map(i -> 9 * i + 1).toArray(), TrafficPattern.UNIFORM,
                                Double.NaN, RoutingMode.ADAPTIVE_0, 64, true, ClosedLoop.Kind.ALLREDUCE),
                        new Simulation.Job("open", IntStream.range(0, 8).map(i -> 9 * i + 2).toArray(), TrafficPattern.ALL_TO_ALL, 0.6,
                                RoutingMode.ADAPTIVE_0, 64, true))).build();
        Simulation sim = Simulation.ranToEnd(c);
        List<Simulation.JobReport> reports = Simulation.run(c).jobs(); // the same run again (same seed), reported
        RoutingMode[] expected = {RoutingMode.ADAPTIVE_1, RoutingMode.ADAPTIVE_0, RoutingMode.ADAPTIVE_1};
        for (int j = 0; j < expected.length; j++) {
            Simulation.Job job = c.jobs().get(j);
            long adaptive = 0;
            long biased = 0;
            for (int e : job.hosts()) {
                assertEquals(expected[j], sim.appAware(e).adaptive(), job.name() + ", host " + e);
                adaptive += sim.appAware(e).adaptiveBytes();
                biased += sim.appAware(e).biasedBytes();
            }
            String what = job.name() + ": " + adaptive + " bytes with " + expected[j] + ", " + biased + " with ADAPTIVE_3";
            assertTrue(adaptive > 0 && biased > 0, what);
            assertEquals((double) adaptive / (adaptive + biased), reports.get(j).adaptiveShare(), 1e-12, what);
        }
        assertEquals(null, sim.appAware(3), "a host in no job chooses nothing");
    }

    /**
     * A closed-loop all-to-all (pairwise exchange) on an idle fabric: of four ranks of one switch,
     * three steps of at least a message latency each; every rank sends to every other once an
     * iteration.
     */
    @Test
    void anAllToAllsIterationIsItsStepsMessageLatencies() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        assertIterations(loop(base, hosts(0, 4), ClosedLoop.Kind.ALL_TO_ALL), 10, 3 * messageNs(base, 0, 1), 12,
                "n (n - 1) messages an all-to-all");
        assertIterations(loop(base, hosts(0, 4), ClosedLoop.Kind.ALLREDUCE), 10, 6 * messageNs(base, 0, 1), 24,
                "n 2 (n - 1) messages a ring allreduce");
    }

    /**
     * A closed loop's report: more than {@code iterations} iterations, each at least {@code leastNs}
     * on average and {@code messages} messages (within two iterations' at the run's ends).
     */
    private static void assertIterations(Simulation.JobReport r, int iterations, double leastNs, int messages, String why) {
        assertTrue(r.iterations() > iterations && r.iterationMeanNs() >= leastNs - 1e-6, r.toString());
        assertEquals((double) messages * r.iterations(), r.messagesCompleted(), messages * 2.0, why + ": " + r);
    }

    /**
     * Closed-loop halo3d (ember's phases x, y, z) and sweep3d (four corners' wavefronts) on the
     * 72-host dragonfly: iterations complete, each as many messages as the pattern sends (halo3d of
     * 8 ranks, a 2 x 2 x 2 grid: 3 neighbours each, 24 messages; sweep3d of 4 ranks, a 2 x 2 grid:
     * 4 links, a message a block in each sweep, 32), each at least its phases' or a sweep's hops in
     * message latencies, and the same seed gives the same report.
     */
    @Test
    void halo3dAndSweep3dIterationsAreTheirPatternsMessages() throws Exception {
        Simulation.Config base = DragonflySimulationTest.config(DragonflyAlgorithm.PAR, TrafficPattern.UNIFORM, 0.5, 40_000, 0);
        Simulation.JobReport halo = loop(base, hosts(0, 8), ClosedLoop.Kind.HALO3D);
        assertIterations(halo, 10, 3 * messageNs(base, 0, 1), 24, "3 x 8 messages an iteration");
        assertEquals(halo, loop(base, hosts(0, 8), ClosedLoop.Kind.HALO3D), "deterministic");
        Simulation.JobReport sweep = loop(base, new int[] {0, 9, 18, 27}, ClosedLoop.Kind.SWEEP3D);
        assertIterations(sweep, 5, 4 * messageNs(base, 0, 1), 32, "4 sweeps x 2 blocks x 4 links");
        assertEquals(sweep, loop(base, new int[] {0, 9, 18, 27}, ClosedLoop.Kind.SWEEP3D), "deterministic");
        Simulation.JobReport other = Simulation.run(base.toBuilder().seed(base.seed() + 1).jobs(List.of(new Simulation.Job("b",
                new int[] {0, 9, 18, 27}, TrafficPattern.UNIFORM, Double.NaN, RoutingMode.ADAPTIVE_0, 1, false, ClosedLoop.Kind.SWEEP3D)))
                .build()).jobs().get(0);
        assertTrue(other.iterations() > 5, "a closed loop has no load (NaN): not checked, not used: " + other);
    }

    @Test
    void pingPongOfMoreThanTwoRanksIsRefused() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.5, 1000, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.toBuilder().jobs(List.of(pingPong(hosts(0, 3), 1))).build());
        assertEquals("job pp: ping-pong runs between two hosts, not 3", e.getMessage());
    }
}
