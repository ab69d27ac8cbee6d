package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.EcnMarking;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.fabriclab.proto.v1.GetNodeCountersRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * A switch run as a process of its own ({@code --processes}) is the switch the fabric would run in
 * its own JVM: its command line carries the fabric's output buffer and the topology's cable delays
 * of each of its ports (a Dragonfly's 2-us local and 10-us global cables here), which the switch
 * agent applies to its links (SwitchAgentMainTest holds the options' refusals); and the fabric's
 * clock line, so that a switch process reads the model time the fabric's JVM reads (Q-adaptive's
 * rewards are differences of two routers' arrival times). Read from each switch process's own
 * command line and its management service.
 */
class SwitchProcessOptionsTest {
    /** The node counters switch process {@code endpoint} ("host:port") reports over its management service. */
    private static NodeCounters nodeCounters(String endpoint) {
        ManagedChannel ch = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        try {
            return ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS)
                    .getNodeCounters(GetNodeCountersRequest.getDefaultInstance());
        } finally {
            ch.shutdownNow();
        }
    }

    /** The emulation status switch process {@code endpoint} ("host:port") reports over its management service. */
    private static EmulationStatus emulationStatus(String endpoint) {
        ManagedChannel ch = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        try {
            return ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS)
                    .getEmulationStatus(GetEmulationStatusRequest.getDefaultInstance());
        } finally {
            ch.shutdownNow();
        }
    }

    @Test
    void switchProcessesGetTheOutputBufferTheTopologysCableDelaysAndEcnMarking() throws Exception {
        Fabric topology = Topologies.generate("dragonfly:p=1,a=2,h=1,local-latency=2us,global-latency=10us");
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLanes(2, 8, 4).withManagementPort(-1).withProcesses(true)
                .withTimeDilation(new TimeDilation(7, false)).withCongestionControl(CongestionControl.settings("dcqcn", Map.of()));
        try (EmulatedFabric f = EmulatedFabric.start(topology, o)) {
            Map<String, Long> pids = f.switchProcesses();
            assertEquals(topology.switchCount(), pids.size());
            for (Map.Entry<String, Long> e : pids.entrySet()) {
                String cmd = ProcessCleanupTest.commandLine(ProcessHandle.of(e.getValue()).orElseThrow()).replace('\0', ' ');
                assertTrue(cmd.contains(" --output-buffer 4 "), e.getKey() + ": " + cmd);
                // the hosts run DCQCN: the switch marks ECN by its rule, and says so over management
                assertTrue(cmd.contains(" --ecn " + EcnMarking.DCQCN.spec() + " "), e.getKey() + ": " + cmd);
                assertTrue(nodeCounters(f.tcpEndpoint(e.getKey())).hasEcn(), e.getKey() + " reports its ECN marks");
                // dragonfly:p=1,a=2,h=1: port 1 local, port 2 global, port 3 the host (no delay given: --link-latency's)
                assertTrue(cmd.contains(" --port-latency 1=2000ns ") && cmd.contains(" --port-latency 2=10000ns ")
                        && !cmd.contains(" --port-latency 3="), e.getKey() + ": " + cmd);
                // and this JVM's clock line: every process reads the model time the fabric reads
                ModelClock.Anchor here = f.modelClock().anchor();
                EmulationStatus there = emulationStatus(f.tcpEndpoint(e.getKey()));
                assertEquals(here.modelNs(), there.getAnchorModelNs(), e.getKey());
                assertEquals(here.wallNs(), there.getAnchorWallNs(), e.getKey());
                assertEquals(7.0, there.getDilation(), e.getKey());
            }
        }
    }
}
