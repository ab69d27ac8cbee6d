package org.fabriclab.ctl;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.AdminService;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.topology.Topologies;

/**
 * A real manager with its perf manager, serving the admin service over a real socket as the
 * daemon does (grpc-netty), managing an emulated fabric: what the daemon verbs' tests talk to.
 */
record TestDaemon(EmulatedFabric fabric, FabricManager manager, PerfManager perf, Server admin) implements AutoCloseable {
    /** The fabric of {@code spec}, managed through the node named {@code seed}; not swept yet. */
    static TestDaemon start(String spec, String seed) throws Exception {
        EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(spec), EmulatedFabric.Options.DEFAULTS);
        FabricManager manager = new FabricManager(fabric.endpoint(seed), "minhop", null, new SimpleMeterRegistry());
        PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 1000);
        Server admin = NettyServerBuilder.forAddress(new InetSocketAddress("localhost", 0))
                .addService(new AdminService(manager, perf)).build().start();
        return new TestDaemon(fabric, manager, perf, admin);
    }

    /** {@code --server}'s value. */
    String server() {
        return "localhost:" + admin.getPort();
    }

    @Override
    public void close() {
        admin.shutdownNow();
        perf.close();
        manager.close();
        fabric.close();
    }
}
