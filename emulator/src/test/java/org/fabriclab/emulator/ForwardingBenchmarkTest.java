package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fabriclab.emulator.bench.ForwardingBenchmark;
import org.junit.jupiter.api.Test;

/** The forwarding benchmark runs both planes and measures something; speed itself is not judged here. */
class ForwardingBenchmarkTest {
    @Test
    void bothPlanesForwardAndTheirLoopsAreTimed() throws Exception {
        List<ForwardingBenchmark.Result> r = ForwardingBenchmark.run(4, 64, 0.2, 0.3, 1);
        assertEquals(List.of("bare-relay", "switch"), r.stream().map(ForwardingBenchmark.Result::plane).toList());
        for (ForwardingBenchmark.Result x : r) {
            assertTrue(x.packets() > 0, x.plane() + " forwarded nothing");
            assertTrue(x.cpuSeconds() > 0, x.plane() + ": no CPU time measured on its loop");
        }
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(2, ForwardingBenchmark.median(new double[] {3, 1, 2}));
        assertEquals(2.5, ForwardingBenchmark.median(new double[] {4, 1, 3, 2}));
    }
}
