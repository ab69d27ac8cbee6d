package org.fabriclab.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TableStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The switch core's per-packet decisions, as both clocks drive them: a 36-port switch whose lower
 * half are inputs and upper half uplinks (an AR group of {@code groupSize} of them holds every
 * destination LID).
 * <ul>
 *   <li>{@link #forwardOnePacket}: a packet arrives, is routed (by its AR group's least-loaded
 *       port when {@code adaptive}, else by the LFT), granted and sent; its link frees and its
 *       credit returns. One op is one packet through the core: the AR choice and one grant.
 * </ul>
 * {@link ArbiterBenchmark} measures the arbiter under contention.
 * Run {@code java -jar bench/target/benchmarks.jar SwitchCore -prof gc}: {@code
 * gc.alloc.rate.norm} is the bytes allocated per op (the target is 0).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SwitchCoreBenchmark {
    static final int PORTS = 36;
    static final int INPUTS = PORTS / 2;
    private static final int LIDS = 512;

    @Param({"false", "true"})
    public boolean adaptive;

    @Param({"2", "18"})
    public int groupSize;

    PacketPool pool;
    SwitchCore core;
    private int lastPort;
    private int lastVl;
    int lastInput;
    private int nextInput;
    private int nextLid;
    long now;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        TableStore tables = new TableStore(PORTS);
        pool = new PacketPool(PORTS * 2 * 8 + 64);
        core = new SwitchCore(PORTS, 2, 8, tables, new PortCounterArray(PORTS), pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long t) {
                lastPort = port;
                lastVl = vl;
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long t) {
                lastInput = port;
            }

            @Override
            public void discarded(int h, int inPort, long t) {
                throw new IllegalStateException("the benchmark's packets are all routable");
            }

            @Override
            public void qFeedback(int port, int row, float value, long t) {
                throw new IllegalStateException("the benchmark's switch routes by its LFT and AR groups: no Q-adaptive feedback");
            }
        });
        List<TableBatch.Block> blocks = new ArrayList<>();
        List<TableBatch.ArBlock> arBlocks = new ArrayList<>();
        for (int b = 0; b < LIDS / 64; b++) {
            byte[] ports = new byte[64];
            short[] groups = new short[64];
            for (int i = 0; i < 64; i++) {
                ports[i] = (byte) (INPUTS + 1 + (b * 64 + i) % groupSize);
                groups[i] = 1;
            }
            blocks.add(new TableBatch.Block(b, ports));
            arBlocks.add(new TableBatch.ArBlock(b, groups));
        }
        int[] group = new int[groupSize];
        for (int i = 0; i < groupSize; i++) {
            group[i] = INPUTS + 1 + i;
        }
        tables.apply(new TableBatch(0, 1, blocks, LIDS - 1, List.of(), List.of(new TableBatch.ArGroup(1, group)), arBlocks, adaptive));
        for (int p = 1; p <= PORTS; p++) {
            core.portActive(p, 8, 0);
        }
    }

    int packet(int dlid) {
        int h = pool.allocate();
        pool.dlid(h, dlid);
        pool.vl(h, 0);
        pool.sl(h, 0);
        pool.bytes(h, 2048);
        return h;
    }

    @Benchmark
    public int forwardOnePacket() {
        now += 10;
        int in = 1 + nextInput;
        nextInput = nextInput + 1 == INPUTS ? 0 : nextInput + 1;
        nextLid = nextLid + 1 == LIDS ? 1 : nextLid + 1;
        core.packetArrived(in, packet(nextLid), now);
        core.linkFree(lastPort, now);
        core.creditReturned(lastPort, lastVl, 1, now);
        return lastPort;
    }
}
