package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's fidelity monitor on an emulated fabric: the dilation in force, one loop and one
 * link lag series per node, a change of D counted by its direction, the summary the admin status reads.
 */
class EmulationMonitorTest {
    @Test
    void exportsTheDilationAndEveryNodesLagsAndCountsChanges(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate("rlft:leaves=2,spines=2,hosts=2");
        MeterRegistry registry = new SimpleMeterRegistry();
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withTimeDilation(new TimeDilation(5, false)));
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", dir.resolve("guid2lid"),
                     registry);
             EmulationMonitor monitor = new EmulationMonitor(manager, registry, 1000)) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            assertEquals(null, registry.find("fabric.emulation.faithful").gauge(), "no series before a poll has answered (not NaN)");
            assertEquals(null, registry.find("fabric.emulation.dilation").gauge());
            monitor.poll();
            assertEquals(5, registry.get("fabric.emulation.dilation").gauge().value());
            double faithful = registry.get("fabric.emulation.faithful").gauge().value();
            assertTrue(faithful == 0 || faithful == 1, "faithful after the first poll: " + faithful);
            int nodes = topology.switchCount() + topology.caCount();
            assertEquals(nodes, registry.find("fabric.emulation.lag").tag("source", "loop").gauges().size());
            assertEquals(nodes, registry.find("fabric.emulation.lag").tag("source", "link").gauges().size());
            assertEquals(0, registry.get("fabric.emulation.dilation.changes").tag("direction", "up").counter().count());
            EmulationMonitor.Summary first = monitor.summary();
            assertEquals(5, first.dilation());
            assertTrue(first.worstLagSeconds() >= 0 && !first.worstWhere().isEmpty(), first.toString());

            fabric.modelClock().dilation(10);
            monitor.poll();
            assertEquals(10, registry.get("fabric.emulation.dilation").gauge().value());
            assertEquals(1, registry.get("fabric.emulation.dilation.changes").tag("direction", "up").counter().count());
            assertEquals(0, registry.get("fabric.emulation.dilation.changes").tag("direction", "down").counter().count());
            assertEquals(10, monitor.summary().dilation());

            String name = InProcessServerBuilder.generateName();
            Server admin = InProcessServerBuilder.forName(name).directExecutor().addService(new AdminService(manager, null, monitor))
                    .build().start();
            ManagedChannel ch = InProcessChannelBuilder.forName(name).directExecutor().build();
            ManagerStatus s;
            try {
                s = AdminGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).getStatus(GetStatusRequest.getDefaultInstance());
            } finally {
                ch.shutdownNow();
                admin.shutdownNow();
            }
            assertEquals(10, s.getTimeDilation(), "fabricctl status reads the dilation");
            assertEquals(monitor.summary().worstWhere(), s.getEmulationLagWhere());
        }
    }
}
