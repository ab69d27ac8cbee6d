package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.FrameSizes;
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
 * A closed-loop message the live host's source queue refuses is not lost (the loop would hang): it
 * waits and is queued when the queue has room, counted, and the job's first is logged once. The
 * command lines refuse a job whose messages could not fit at once ({@code
 * ClosedLoop.messagesQueuedAtOnce} against {@code --source-queue}), so the test starts the job past
 * them, on the fabric's own {@code startJobs}, with a queue deliberately tight: a broadcast of 4
 * ranks whose root sends its two children a message of 64 packets each at the start of every
 * iteration, from a source queue of 64. The NIC takes 17 of the first message's packets at once
 * (its 16-packet send queue and the link), so the second never fits then: it is refused once per
 * iteration, and every iteration still completes.
 */
class LiveClosedLoopRefusalTest {
    private static final int QUEUE = 64;
    private static final int MESSAGE = 64;
    private static final int PAYLOAD = 256;

    @Test
    void aRefusedClosedLoopMessageWaitsForRoomAndIsCountedAndLoggedOnce() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        ForwardingTables tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS))
                .tables();
        int[] ranks = {0, 3, 5, 6};
        List<Simulation.Job> jobs = List.of(new Simulation.Job("tight", ranks, TrafficPattern.UNIFORM, 0.1, RoutingMode.DEFAULT, MESSAGE,
                false, ClosedLoop.Kind.BROADCAST));
        assertTrue(ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.BROADCAST, ranks.length) * MESSAGE > QUEUE,
                "the command lines would refuse this job");
        // buffers sized for this job's frames, so that they hold the packets the counts below assume (credits count 64-byte blocks)
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withSourceQueuePackets(QUEUE).withPacketBytes(FrameSizes.DATA_HEADER + PAYLOAD);
        PrintStream err = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (EmulatedFabric fabric = EmulatedFabric.start(f, o)) {
            LiveHost[] host = LiveHosts.activate(fabric, f, tables, o.vls());
            // the logger writes to whatever System.err is when it writes: the job's lines are caught here
            System.setErr(new PrintStream(new TeeStream(log, err), true, StandardCharsets.UTF_8));
            fabric.startJobs(jobs, PAYLOAD, tables);
            Waits.until("the broadcast's iterations", () -> LiveHosts.node(host, ranks[0], PortCounterArray.JOB_ITERATIONS) >= 30);
            fabric.stopTraffic();
            LiveHosts.waitUntilQuiet(host);
            long iterations = LiveHosts.node(host, ranks[0], PortCounterArray.JOB_ITERATIONS);
            long refused = LiveHosts.node(host, ranks[0], PortCounterArray.JOB_REFUSED_MESSAGES);
            long messages = 0;
            for (int r = 0; r < ranks.length; r++) {
                messages += LiveHosts.node(host, ranks[r], PortCounterArray.JOB_MESSAGES);
                if (r > 0) {
                    assertEquals(0, LiveHosts.node(host, ranks[r], PortCounterArray.JOB_REFUSED_MESSAGES), "rank " + r + " sends one at a time");
                }
            }
            String what = messages + " messages, " + iterations + " iterations, " + refused + " refused";
            assertTrue(refused >= iterations && refused <= iterations + 1, "one refused per iteration started: " + what);
            // none lost: every iteration's three messages arrived (the last one started, and one ended after the stop, uncounted, may add up to three)
            assertTrue(messages >= 3 * iterations && messages < 3 * (iterations + 2), what);
            assertEquals(0, host[ranks[0]].stats().join().refused(), "none counted as an open loop's loss");
        } finally {
            System.setErr(err);
        }
        List<String> lines = log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("closed-loop message")).toList();
        assertEquals(1, lines.size(), "logged once for the job: " + lines);
        String line = lines.get(0);
        String hostName = f.name(f.endpointNode(ranks[0]));
        for (String part : List.of("WARN", "job tight", "host " + hostName + " (rank 0)", "of " + MESSAGE + " packets",
                "source queue of " + QUEUE + " packets", "--source-queue of " + 2 * MESSAGE + " packets")) {
            assertTrue(line.contains(part), "'" + part + "' in: " + line);
        }
    }

    /** Writes to two streams. */
    private static final class TeeStream extends java.io.OutputStream {
        private final java.io.OutputStream a;
        private final java.io.OutputStream b;

        TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int x) throws java.io.IOException {
            a.write(x);
            b.write(x);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
