package org.fabriclab.manager;

import io.grpc.BindableService;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import org.fabriclab.proto.v1.AdminGrpc;

/**
 * The standard gRPC health service ({@code grpc.health.v1.Health}) on the admin server, its
 * statuses following the manager's state, for Kubernetes' native gRPC probes and any
 * {@code grpc_health_probe}:
 *
 * <ul>
 *   <li>{@value #READINESS_NAME} (the empty name: the server as a whole, what a check without a
 *       service name asks; the readiness probe): SERVING while the manager is {@code UP}, NOT_SERVING
 *       while it is {@code FAILED} or {@code STANDBY} (it configures nothing: a Service then sends
 *       admin calls to the master only), and NOT_SERVING before its first sweep has ended. A sweep
 *       under way ({@code DISCOVERING}, {@code ROUTING}) keeps the status the last sweep ended in, so
 *       a re-sweep after a trap does not take a working manager out of its Service.</li>
 *   <li>{@value #LIVENESS_NAME} (the liveness probe): SERVING from the start until shutdown,
 *       whatever the fabric does: a manager whose sweeps fail retries on traps, light sweeps and
 *       requests, and restarting it would not mend the fabric.</li>
 * </ul>
 *
 * <p>Thread-safe: statuses are set on the manager's sweep thread, read by gRPC's.
 */
final class ManagerHealth {
    /** The readiness probe's service name: the server as a whole. */
    static final String READINESS_NAME = HealthStatusManager.SERVICE_NAME_ALL_SERVICES;
    /** The liveness probe's service name: the admin service being served. */
    static final String LIVENESS_NAME = AdminGrpc.SERVICE_NAME;

    private final HealthStatusManager health = new HealthStatusManager();
    /** What the last finished sweep ended in: what a sweep under way reports. */
    private ServingStatus settled = ServingStatus.NOT_SERVING;

    /** Starts following {@code manager}'s state (call before its first sweep, or at any time after). */
    ManagerHealth(FabricManager manager) {
        health.setStatus(LIVENESS_NAME, ServingStatus.SERVING);
        health.setStatus(READINESS_NAME, ServingStatus.NOT_SERVING);
        manager.onStateChange(this::follow);
        follow(manager.snapshot().state());
    }

    /** The readiness status for a state, given what the last finished sweep reported. */
    static ServingStatus readiness(FabricManager.State state, ServingStatus settled) {
        return switch (state) {
            case UP -> ServingStatus.SERVING;
            case FAILED, STANDBY -> ServingStatus.NOT_SERVING;
            case DISCOVERING, ROUTING -> settled;
        };
    }

    private synchronized void follow(FabricManager.State state) {
        settled = readiness(state, settled);
        health.setStatus(READINESS_NAME, settled);
    }

    /** The service to add to the admin server. */
    BindableService service() {
        return health.getHealthService();
    }

    /** Every service NOT_SERVING, for good: the daemon is stopping. */
    void shutdown() {
        health.enterTerminalState();
    }
}
