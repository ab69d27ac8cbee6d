package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.emulator.live.WorstLag;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.CpuLoad;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Time dilation, end to end: a fabric of 100 Gbps links under {@code auto}, managed, with the
 * test keeping two cores busy. Where the model does not congest (a permutation at a tenth of the
 * links' rate), every host receives what its source offers within 5% in model time, over a window
 * the fidelity monitor calls faithful; the daemon's monitor exports the dilation in force.
 */
class TimeDilationIT {
    private static final double OFFERED_GBPS = 10;
    /**
     * A measuring window: 5 s of wall time at the dilation in force, in model time between 5 ms
     * (3,000 frames a host at 10 Gbps: the Poisson arrivals' spread is under 2%) and 100 ms.
     */
    private static final long WINDOW_WALL_NS = 5_000_000_000L;
    private static final int ATTEMPTS = 12;

    @Test
    void uncongestedHostsReceiveWhatTheyOfferInModelTimeWhateverTheCpuLoad(@TempDir Path dir) throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        CpuLoad load = new CpuLoad(2);
        try (load;
             EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=2,hosts=2"),
                     EmulatedFabric.Options.DEFAULTS.withTimeDilation(TimeDilation.AUTO));
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", dir.resolve("guid2lid"),
                     registry);
             EmulationMonitor monitor = new EmulationMonitor(manager, registry, 1000)) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            fabric.startTraffic(TrafficPattern.PERMUTATION, OFFERED_GBPS, 2048, 0, s.outcome().tables());
            ModelClock clock = fabric.modelClock();
            assertTrue(clock.dilation() > 1, "auto starts from the offered load: " + clock.dilation());
            List<LiveHost> hosts = fabric.hosts();
            List<String> tried = new ArrayList<>();
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                long[] before = received(hosts);
                long t0 = clock.nanos();
                long wall0 = System.nanoTime();
                long window = Math.max(5_000_000, Math.min(100_000_000, clock.modelNanos(WINDOW_WALL_NS)));
                TimeUnit.NANOSECONDS.sleep(clock.wallNanos(window)); // a measuring window, not a synchronisation
                long[] after = received(hosts);
                long t1 = clock.nanos();
                long windowMillis = (System.nanoTime() - wall0) / 1_000_000;
                WorstLag lag = fabric.worstLag(windowMillis);
                double[] gbps = new double[hosts.size()];
                for (int i = 0; i < gbps.length; i++) {
                    gbps[i] = (after[i] - before[i]) * 8.0 / (t1 - t0);
                }
                tried.add(String.format("D=%.3g lag %d ns: %s", clock.dilation(), lag.lagNs(), Arrays.toString(gbps)));
                if (!lag.faithful()) {
                    continue; // the monitor says this window was not faithful (the JIT warming, auto still raising D)
                }
                for (int i = 0; i < gbps.length; i++) {
                    assertEquals(OFFERED_GBPS, gbps[i], 0.05 * OFFERED_GBPS, hosts.get(i).name() + " received, model Gbps; " + tried);
                }
                monitor.poll();
                assertEquals(clock.dilation(), registry.get("fabric.emulation.dilation").gauge().value(), 1e-9);
                assertTrue(monitor.summary().dilation() > 1, monitor.summary().toString());
                return;
            }
            fail("no faithful window in " + ATTEMPTS + " tries: " + tried);
        }
    }

    private static long[] received(List<LiveHost> hosts) {
        long[] b = new long[hosts.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = hosts.get(i).stats().join().receivedBytes();
        }
        return b;
    }
}
