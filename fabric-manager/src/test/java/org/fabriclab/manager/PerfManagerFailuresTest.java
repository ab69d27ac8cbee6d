package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * The perf manager does not swallow what it cannot expect: a failure that is no gRPC status (here
 * a meter registry that refuses a gauge) is counted as unexpected and logged, and polling goes on
 * with the other ports and flows.
 */
class PerfManagerFailuresTest {
    @Test
    void anUnexpectedFailureIsCountedAndPollingGoesOn() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry() {
            @Override
            protected <T> Gauge newGauge(Meter.Id id, T obj, ToDoubleFunction<T> f) {
                if (id.getName().equals("fabric.port.utilisation") && "1".equals(id.getTag("port"))) {
                    throw new IllegalStateException("refused " + id.getName() + " for the test");
                }
                return super.newGauge(id, obj, f);
            }
        };
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry());
             PerfManager perf = new PerfManager(manager, registry, 60_000)) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            perf.poll();
            double unexpected = registry.get("fabric.perf.poll.failures").tag("kind", "unexpected").counter().count();
            assertTrue(unexpected > 0, "every port 1 failed unexpectedly: " + unexpected);
            assertEquals(0, registry.get("fabric.perf.poll.failures").tag("kind", "node").counter().count());
            // the other ports were polled all the same
            assertTrue(registry.find("fabric.port.transmit.bytes").tag("port", "2").functionCounters().size() > 0);
        }
    }
}
