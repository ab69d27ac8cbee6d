package org.fabriclab.emulator.live;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.fabriclab.agent.link.DilationController;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.SetTimeDilationRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --time-dilation auto} for a fabric emulated from this JVM: once traffic starts
 * ({@link #follow}), every {@link #INTERVAL_MS} reads the worst lag of every node (those in this
 * JVM from their loops, switch processes by GetEmulationStatus) over the interval, asks the
 * {@link DilationController}, and on a change sets the fabric's clock and every switch process's
 * (SetTimeDilation), logging when and why. An idle fabric's lags (the start's compiling, a
 * stall of the machine) say nothing of the load it will carry: before traffic D stays put.
 */
final class AutoDilation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AutoDilation.class);
    /** How often the lags are read and D decided, in wall time. */
    static final long INTERVAL_MS = 2_000;

    private final ModelClock clock;
    private final List<LiveNode> local;
    private final List<ManagedChannel> processes = new ArrayList<>();
    private final List<String> processNames = new ArrayList<>();
    private final DilationController controller = new DilationController();
    /** Set once traffic started (timer thread only). */
    private boolean following;
    /** Set once a switch process refused a change for a manager's M_Key: D stays where it is. */
    private volatile boolean stopped;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "time-dilation");
        t.setDaemon(true);
        return t;
    });

    AutoDilation(ModelClock clock, List<LiveNode> local) {
        this.clock = clock;
        this.local = local;
    }

    /** Also watches (and sets) the switch process {@code name} managed at {@code host}:{@code port}. */
    void addProcess(String name, String host, int port) {
        processes.add(NettyChannelBuilder.forAddress(host, port).usePlaintext().build());
        processNames.add(name);
    }

    void start() {
        timer.scheduleWithFixedDelay(this::decide, INTERVAL_MS, INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Traffic starts: from now on D follows the lags, starting from {@code d} (the estimate from
     * the offered load, or the D in force); the controller waits for lags at it.
     */
    void follow(double d) {
        if (d != clock.dilation() && !stopped) {
            set(d); // at once: the traffic starting now runs at it
        }
        timer.execute(() -> {
            following = true;
            controller.hold();
        });
    }

    /**
     * Sets D on this JVM's clock and on every switch process, which adopts this clock's new line
     * whole, so that every process of the fabric reads one model time (a process that refuses is
     * logged). A process guarded by a manager's M_Key refuses every change (PERMISSION_DENIED): then
     * the fabric goes back to the D it had, on every process that took the new one, and auto stops,
     * saying so once. Before, D went on changing in this JVM alone, the hosts and the switch
     * processes ran at different dilations, and every change was refused, logged and trapped as an
     * M_Key violation again.
     */
    private void set(double d) {
        double before = clock.dilation();
        clock.dilation(d);
        String guarded = anchorProcesses();
        if (guarded != null) {
            clock.dilation(before);
            anchorProcesses();
            stopped = true;
            LOG.warn("time dilation: switch process {} is guarded by a manager's M_Key and refuses to change its D, so auto keeps the "
                    + "fabric at D={} from now on (one D for hosts and switches); start emulator up --processes with a fixed "
                    + "--time-dilation D to run at another", guarded, String.format("%.3g", before));
        }
    }

    /** Hands this clock's line to every switch process; the first that refused for a manager's M_Key, or null. */
    private String anchorProcesses() {
        ModelClock.Anchor a = clock.anchor();
        return forEachProcess(stub -> stub.setTimeDilation(SetTimeDilationRequest.newBuilder().setDilation(a.dilation()).setAnchored(true)
                .setAnchorModelNs(a.modelNs()).setAnchorWallNs(a.wallNs()).build()));
    }

    private void decide() {
        if (!following || stopped) {
            return;
        }
        try {
            WorstLag w = worst();
            DilationController.Decision d = controller.next(clock.dilation(), w.lagNs(), w.boundNs());
            if (d.changes()) {
                LOG.info("time dilation {} -> {}: {} (worst: {})", String.format("%.3g", clock.dilation()),
                        String.format("%.3g", d.dilation()), d.why(), w.where());
                set(d.dilation());
            }
        } catch (RuntimeException e) {
            LOG.warn("time dilation: the lags could not be read, D stays at {}: {}", clock.dilation(), e.toString());
        }
    }

    private WorstLag worst() {
        WorstLag w = WorstLag.of(local, INTERVAL_MS, clock);
        for (int i = 0; i < processes.size(); i++) {
            EmulationStatus s = ManagementGrpc.newBlockingStub(processes.get(i)).withDeadlineAfter(1, TimeUnit.SECONDS)
                    .getEmulationStatus(GetEmulationStatusRequest.newBuilder().setWindowMs((int) INTERVAL_MS).build());
            w = w.worse(s.getLoopLagNs(), s.getLagBoundNs(), processNames.get(i) + " event loop")
                    .worse(s.getLinkLagNs(), s.getLagBoundNs(), processNames.get(i) + " port " + s.getLinkLagPort());
        }
        return w;
    }

    /** Calls every switch process; returns the first that refused for a manager's M_Key (PERMISSION_DENIED), or null. */
    private String forEachProcess(Consumer<ManagementGrpc.ManagementBlockingStub> call) {
        String guarded = null;
        for (int i = 0; i < processes.size(); i++) {
            try {
                call.accept(ManagementGrpc.newBlockingStub(processes.get(i)).withDeadlineAfter(1, TimeUnit.SECONDS));
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
                    guarded = guarded == null ? processNames.get(i) : guarded;
                } else {
                    LOG.warn("time dilation: switch process {} did not take it: {}", processNames.get(i), e.getStatus());
                }
            }
        }
        return guarded;
    }

    /**
     * The links a frame crosses on average from host 0 to every other host by shortest paths (as
     * uniform traffic on a symmetric fabric does), for {@link DilationController#initial}.
     */
    static double meanLinks(Fabric f) {
        int[] dist = new int[f.nodeCount()];
        Arrays.fill(dist, -1);
        int source = f.nodeOfGlobalPort(f.endpointPort(0));
        ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(source));
        dist[source] = 0;
        long sum = 0;
        int hosts = 0;
        while (!queue.isEmpty()) {
            int n = queue.poll();
            if (!f.isSwitch(n) && n != source) {
                sum += dist[n];
                hosts++;
                continue; // hosts forward nothing
            }
            for (int p = 1; p <= f.portCount(n); p++) {
                int peer = f.peerNode(f.globalPort(n, p));
                if (peer >= 0 && dist[peer] < 0) {
                    dist[peer] = dist[n] + 1;
                    queue.add(peer);
                }
            }
        }
        return hosts == 0 ? 1 : (double) sum / hosts;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        processes.forEach(ManagedChannel::shutdownNow);
    }
}
