package org.fabriclab.agent.core;

import java.util.Arrays;
import org.fabriclab.agent.mgmt.ManagedNode;

/**
 * Port counters of one node in one flat {@code long[]}, indexed {@code port * COUNTERS + counter},
 * as the data plane increments them and as metrics read them at scrape time (no meter call per
 * packet). Writes come from the one thread that owns the node's data plane, resets included
 * ({@code ManagedNode.resetCounters} runs them there: a reset from another thread would race the
 * read-increment-write of {@link #add}); reads from anywhere may lag by a packet or two, which
 * monitoring tolerates.
 *
 * <p>Beside the counters, a matrix of the bytes each output port sent by the input port they came
 * in on: what each input got of an output, unless made without it ({@link #PortCounterArray(int, boolean)}:
 * a simulation that reports no port shares saves a cache miss per packet). (Queue depths are the core's own state, read through
 * {@link ManagedNode#gauges}, not kept twice.)
 */
public final class PortCounterArray {
    public static final int XMIT_DATA = 0;
    public static final int RCV_DATA = 1;
    public static final int XMIT_PKTS = 2;
    public static final int RCV_PKTS = 3;
    public static final int XMIT_WAIT_NS = 4;
    public static final int XMIT_DISCARDS = 5;
    public static final int COUNTERS = 6;

    private final long[] values;
    /** Per output, per input: bytes; null if not kept. */
    private final long[] inputBytes;
    private final int ports;

    /** Counters of {@code ports} ports and the bytes each output sent by input port. */
    public PortCounterArray(int ports) {
        this(ports, true);
    }

    /** Counters of {@code ports} ports, and the bytes each output sent by input port if {@code perInputBytes}. */
    public PortCounterArray(int ports, boolean perInputBytes) {
        this.ports = ports;
        values = new long[(ports + 1) * COUNTERS];
        inputBytes = perInputBytes ? new long[(ports + 1) * (ports + 1)] : null;
    }

    public int ports() {
        return ports;
    }

    public void add(int port, int counter, long delta) {
        values[port * COUNTERS + counter] += delta;
    }

    public long get(int port, int counter) {
        return values[port * COUNTERS + counter];
    }

    /** Output {@code out} sent {@code bytes} that arrived on input {@code in}. */
    public void addInput(int out, int in, long bytes) {
        if (inputBytes != null) {
            inputBytes[out * (ports + 1) + in] += bytes;
        }
    }

    /** Bytes output {@code out} has sent that arrived on input {@code in} (0 if they are not kept). */
    public long inputBytes(int out, int in) {
        return inputBytes == null ? 0 : inputBytes[out * (ports + 1) + in];
    }

    /** Clears one port's counters, or every port's when {@code port} is 0. */
    public void reset(int port) {
        for (int p = port == 0 ? 0 : port; p <= (port == 0 ? ports : port); p++) {
            for (int c = 0; c < COUNTERS; c++) {
                values[p * COUNTERS + c] = 0;
            }
            if (inputBytes != null) {
                Arrays.fill(inputBytes, p * (ports + 1), (p + 1) * (ports + 1), 0);
            }
        }
    }
}
