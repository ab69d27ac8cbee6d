package org.fabriclab.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The round-robin arbiter under contention: on the 36-port switch of {@link SwitchCoreBenchmark},
 * all 18 inputs hold full buffers for one output. One op is one grant over the 18 requests (the
 * link frees, a credit returns), then the served input's buffer refilled by an arriving packet.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ArbiterBenchmark {
    private SwitchCoreBenchmark b;
    private int out;
    private int lid;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        b = new SwitchCoreBenchmark();
        b.adaptive = false;
        b.groupSize = 2;
        b.setUp();
        out = SwitchCoreBenchmark.INPUTS + 1;
        lid = 64; // its static port: the first uplink
        for (int in = 1; in <= SwitchCoreBenchmark.INPUTS; in++) {
            for (int k = 0; k < 8; k++) {
                b.core.packetArrived(in, b.packet(lid), 0);
            }
        }
    }

    @Benchmark
    public int grantUnderContention() {
        b.now += 10;
        b.core.creditReturned(out, 0, 1, b.now);
        b.core.linkFree(out, b.now); // grants the next input in round-robin order
        b.core.packetArrived(b.lastInput, b.packet(lid), b.now);
        return b.lastInput;
    }
}
