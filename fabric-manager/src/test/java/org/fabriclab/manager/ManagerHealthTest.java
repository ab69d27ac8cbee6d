package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.FabricManager.State;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The health service the Kubernetes probes ask, over a real gRPC channel (in-process transport):
 * readiness follows the manager's state (NOT_SERVING before the first sweep, SERVING when UP,
 * NOT_SERVING when FAILED or STANDBY, unchanged during a re-sweep), liveness stays SERVING until
 * shutdown.
 */
class ManagerHealthTest {
    private static final String SPEC = "rlft:leaves=2,spines=2,hosts=1";
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private FabricManager manager(EmulatedFabric fabric, long guid, int priority) {
        FabricManager m = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry(),
                new Mastership.Config(guid, priority, 0));
        open.add(m);
        return m;
    }

    /** Serves {@code health} in-process and returns a stub on a channel to it. */
    private HealthGrpc.HealthStub serve(ManagerHealth health) throws Exception {
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name).addService(health.service()).build().start();
        open.add(() -> server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        open.add(() -> channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS));
        return HealthGrpc.newStub(channel);
    }

    private static ServingStatus check(HealthGrpc.HealthStub stub, String service) {
        return HealthGrpc.newBlockingStub(stub.getChannel()).withDeadlineAfter(5, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService(service).build()).getStatus();
    }

    /** Every status the Watch stream of {@code service} sends, in order. */
    private static List<ServingStatus> watch(HealthGrpc.HealthStub stub, String service) {
        List<ServingStatus> seen = new CopyOnWriteArrayList<>();
        stub.watch(HealthCheckRequest.newBuilder().setService(service).build(), new StreamObserver<>() {
            @Override
            public void onNext(HealthCheckResponse r) {
                seen.add(r.getStatus());
            }

            @Override
            public void onError(Throwable t) {
            }

            @Override
            public void onCompleted() {
            }
        });
        return seen;
    }

    @Test
    void readinessFollowsTheStateAndAResweepDoesNotFlipIt() throws Exception {
        EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
        open.add(fabric);
        FabricManager manager = manager(fabric, 0xA, 0);
        ManagerHealth health = new ManagerHealth(manager);
        HealthGrpc.HealthStub stub = serve(health);
        List<ServingStatus> readiness = watch(stub, ManagerHealth.READINESS_NAME);

        assertEquals(ServingStatus.NOT_SERVING, check(stub, ManagerHealth.READINESS_NAME), "before the first sweep");
        assertEquals(ServingStatus.SERVING, check(stub, ManagerHealth.LIVENESS_NAME));

        assertEquals(State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
        assertEquals(ServingStatus.SERVING, check(stub, ManagerHealth.READINESS_NAME), "UP");
        // a re-sweep passes through DISCOVERING and ROUTING: readiness stays as the last sweep left it
        assertEquals(State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());

        fabric.close(); // the seed no longer answers: the next sweep fails
        assertEquals(State.FAILED, manager.sweep().get(60, TimeUnit.SECONDS).state());
        assertEquals(ServingStatus.NOT_SERVING, check(stub, ManagerHealth.READINESS_NAME), "FAILED");
        assertEquals(ServingStatus.SERVING, check(stub, ManagerHealth.LIVENESS_NAME), "a failed fabric is no reason to restart the manager");
        Waits.until("the watch saw the failure", () -> readiness.size() >= 3);
        assertEquals(List.of(ServingStatus.NOT_SERVING, ServingStatus.SERVING, ServingStatus.NOT_SERVING), readiness,
                "the watch stream, in order: the re-sweep sent nothing");

        health.shutdown();
        assertEquals(ServingStatus.NOT_SERVING, check(stub, ManagerHealth.LIVENESS_NAME), "shutting down");
    }

    @Test
    void aStandbyIsNotReady() throws Exception {
        EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
        open.add(fabric);
        FabricManager weak = manager(fabric, 0xA, 1);
        HealthGrpc.HealthStub stub = serve(new ManagerHealth(weak));
        assertEquals(State.UP, weak.sweep().get(60, TimeUnit.SECONDS).state());
        assertEquals(ServingStatus.SERVING, check(stub, ManagerHealth.READINESS_NAME));

        FabricManager strong = manager(fabric, 0xB, 9);
        assertEquals(State.UP, strong.sweep().get(60, TimeUnit.SECONDS).state());
        weak.lightSweep(); // sees the stronger manager's claim and stands by
        assertEquals(State.STANDBY, weak.snapshot().state());
        assertEquals(ServingStatus.NOT_SERVING, check(stub, ManagerHealth.READINESS_NAME), "STANDBY");
        assertEquals(ServingStatus.SERVING, check(stub, ManagerHealth.LIVENESS_NAME));
    }

    @Test
    void everyStateHasAReadiness() {
        for (ServingStatus settled : List.of(ServingStatus.SERVING, ServingStatus.NOT_SERVING)) {
            assertEquals(ServingStatus.SERVING, ManagerHealth.readiness(State.UP, settled));
            assertEquals(ServingStatus.NOT_SERVING, ManagerHealth.readiness(State.FAILED, settled));
            assertEquals(ServingStatus.NOT_SERVING, ManagerHealth.readiness(State.STANDBY, settled));
            assertEquals(settled, ManagerHealth.readiness(State.DISCOVERING, settled));
            assertEquals(settled, ManagerHealth.readiness(State.ROUTING, settled));
        }
    }
}
