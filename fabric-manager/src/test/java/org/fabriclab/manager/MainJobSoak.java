package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.UnixOperatingSystemMXBean;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.SweepRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak test (Maven profile {@code soak}, never in the default build): the main job, as
 * {@code bin/fabric-manager --emulate fat-tree:k=4,levels=3} runs it (the emulated fabric at
 * {@code auto} time dilation, the manager with light sweeps every 10 s, the perf manager and
 * emulation monitor every second, uniform traffic at 0.2 Gbps a host, the admin service over TCP,
 * {@code /metrics} and the fabric view scraped every 15 s), for {@code soak.minutes} (30) minutes,
 * with a heavy sweep asked for over the admin service every minute and a switch-to-switch link
 * taken down and brought back every 5 minutes (each time the manager must route around it and back).
 *
 * <p>Once a minute, after two full collections: the heap in use, the live threads and the open
 * file descriptors. It passes when the heap after GC of the last three minutes is within 10% of
 * minutes 3 to 5 (after warm-up, medians) and threads and descriptors did not grow: the last three
 * minutes' lowest count is at most that window's highest (pools start and end threads as they
 * work, so a count moves by one or two from minute to minute; a leak raises the floor). Every
 * scrape must be answered. The figures are printed as a table, for
 * docs/benchmarks.md. Run: {@code ./mvnw -B -ntp -Psoak -pl fabric-manager -am verify
 * [-Dsoak.minutes=30]}.
 */
class MainJobSoak {
    private record Sample(int minute, long heapAfterGc, int threads, long fds, String state, long heavySweeps, double dilation) {
    }

    @Test
    void theMainJobHoldsSteadyUnderSweepsAndFlaps(@TempDir Path dir) throws Exception {
        int minutes = Integer.getInteger("soak.minutes", 30);
        assertTrue(minutes >= 8, "a soak needs at least 8 minutes to compare a window after warm-up with the end");
        Fabric topology = Topologies.generate("fat-tree:k=4,levels=3");
        int[] flap = switchLink(topology);
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "soak-scraper"));
        List<Sample> samples = new ArrayList<>();
        AtomicLong scrapes = new AtomicLong();
        AtomicLong scrapeFailures = new AtomicLong();
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withTimeDilation(TimeDilation.AUTO));
             FabricManager manager = new FabricManager(fabric.endpoint(topology.name(topology.nodeCount() - 1)), "minhop",
                     dir.resolve("guid2lid"), registry);
             PerfManager perf = new PerfManager(manager, registry, 1000, PerfManager.DEFAULT_TOP_FLOWS);
             EmulationMonitor emulation = new EmulationMonitor(manager, registry, 1000);
             MetricsServer metrics = new MetricsServer(registry, InetAddress.getLoopbackAddress(), 0)) {
            metrics.serve("/", FabricViewSource.view(manager, perf));
            Server admin = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(AdminService.served(manager, perf, emulation)).build().start();
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", admin.getPort()).usePlaintext().build();
            try {
                FabricManager.Snapshot first = manager.sweep().get(120, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, first.state(), first.lastError());
                int links = first.discovered().fabric().linkCount();
                fabric.startTraffic(TrafficPattern.UNIFORM, 0.2, 2048, 0, first.outcome().tables());
                manager.startPeriodicSweeps(10);
                perf.start();
                emulation.start();
                String base = "http://127.0.0.1:" + metrics.port();
                scraper.scheduleWithFixedDelay(() -> {
                    for (String path : new String[] {"/metrics", "/api/load"}) {
                        try {
                            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
                                    HttpResponse.BodyHandlers.discarding());
                            (r.statusCode() == 200 ? scrapes : scrapeFailures).incrementAndGet();
                        } catch (Exception e) {
                            scrapeFailures.incrementAndGet();
                        }
                    }
                }, 15, 15, TimeUnit.SECONDS);
                long start = System.nanoTime();
                System.out.printf("soak: %d minutes of fat-tree:k=4,levels=3 (%d links), flapping %s[%d] every 5 minutes%n",
                        minutes, links, topology.name(flap[0]), flap[1]);
                System.out.println("minute heapAfterGcMB threads fds state heavySweeps dilation");
                for (int minute = 1; minute <= minutes; minute++) {
                    // pacing: the soak runs for its minutes; nothing waits on this for a condition
                    long due = start + TimeUnit.MINUTES.toNanos(minute);
                    while (System.nanoTime() < due) {
                        Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(due - System.nanoTime())));
                    }
                    ManagerStatus s = AdminGrpc.newBlockingStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS).sweep(SweepRequest.getDefaultInstance());
                    assertEquals("UP", s.getState(), "minute " + minute + ": " + s.getLastError());
                    if (minute % 5 == 0 && minute < minutes) {
                        fabric.linkDown(topology.name(flap[0]), flap[1]);
                        Waits.until("minute " + minute + ": routed around the flapped link", () -> manager.snapshot().state() == FabricManager.State.UP
                                && manager.snapshot().discovered().fabric().linkCount() == links - 1);
                        fabric.linkUp(topology.name(flap[0]), flap[1]);
                        Waits.until("minute " + minute + ": the link back in the routes", () -> manager.snapshot().state() == FabricManager.State.UP
                                && manager.snapshot().discovered().fabric().linkCount() == links);
                    }
                    samples.add(sample(minute, manager, emulation));
                    Sample x = samples.get(samples.size() - 1);
                    System.out.printf("%d %.1f %d %d %s %d %.1f%n", x.minute(), x.heapAfterGc() / 1e6, x.threads(), x.fds(), x.state(),
                            x.heavySweeps(), x.dilation());
                }
            } finally {
                scraper.shutdownNow();
                channel.shutdownNow();
                admin.shutdownNow();
            }
        }
        List<Sample> early = samples.subList(2, 5);
        List<Sample> late = samples.subList(samples.size() - 3, samples.size());
        long earlyHeap = median(early.stream().mapToLong(Sample::heapAfterGc).toArray());
        long lateHeap = median(late.stream().mapToLong(Sample::heapAfterGc).toArray());
        int earlyThreads = early.stream().mapToInt(Sample::threads).max().orElseThrow();
        int lateThreads = late.stream().mapToInt(Sample::threads).min().orElseThrow();
        long earlyFds = early.stream().mapToLong(Sample::fds).max().orElseThrow();
        long lateFds = late.stream().mapToLong(Sample::fds).min().orElseThrow();
        System.out.printf("soak result: heap after GC %.1f MB (minutes 3-5, median) -> %.1f MB (last 3), %+.1f%%; threads at most %d -> "
                        + "at least %d; fds at most %d -> at least %d; scrapes %d answered, %d failed%n", earlyHeap / 1e6, lateHeap / 1e6,
                100.0 * (lateHeap - earlyHeap) / earlyHeap, earlyThreads, lateThreads, earlyFds, lateFds, scrapes.get(), scrapeFailures.get());
        assertTrue(Math.abs(lateHeap - earlyHeap) <= earlyHeap / 10, "heap after GC within 10%: " + earlyHeap + " -> " + lateHeap);
        assertTrue(lateThreads <= earlyThreads, "no thread growth: " + earlyThreads + " -> " + lateThreads);
        assertTrue(lateFds <= earlyFds, "no file-descriptor growth: " + earlyFds + " -> " + lateFds);
        assertEquals(0, scrapeFailures.get(), "every scrape answered");
    }

    /** A link between two switches: {node, port}, the first in the fabric's order. */
    private static int[] switchLink(Fabric f) {
        for (int n = 0; n < f.nodeCount(); n++) {
            for (int p = 1; f.isSwitch(n) && p <= f.portCount(n); p++) {
                int peer = f.peerNode(f.globalPort(n, p));
                if (peer >= 0 && f.isSwitch(peer)) {
                    return new int[] {n, p};
                }
            }
        }
        throw new IllegalStateException("no switch-to-switch link in " + f.kind());
    }

    private static Sample sample(int minute, FabricManager manager, EmulationMonitor emulation) {
        System.gc();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        long fds = ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u ? u.getOpenFileDescriptorCount() : -1;
        FabricManager.Snapshot s = manager.snapshot();
        return new Sample(minute, heap, threads, fds, s.state().name(), s.heavySweeps(), emulation.summary().dilation());
    }

    private static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}
