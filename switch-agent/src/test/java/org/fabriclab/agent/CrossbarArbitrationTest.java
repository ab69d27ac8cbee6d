package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TableStore;
import org.junit.jupiter.api.Test;

/**
 * The order in which an output takes the input buffers waiting for it ({@link CrossbarArbitration}),
 * in an input-queued core (the link granted) and an input-output queued one (the output buffer
 * filled): round-robin per output, from the one after the last this output took; least recently
 * used over the whole switch, where a buffer that another output just served goes after one that
 * has waited, and a buffer that waits keeps its place however long it waits.
 */
class CrossbarArbitrationTest {
    private static final int PORTS = 4;
    /** LID 10 leaves by port 3, LID 11 by port 4. */
    private static final int TO_3 = 10;
    private static final int TO_4 = 11;
    private final List<int[]> sent = new ArrayList<>();
    private PacketPool pool;
    private SwitchCore core;

    /** A core of 4 ports, 2 lanes of 4 packets, {@code outputBuffer} packets of output buffer (0: input-queued). */
    private void build(int outputBuffer, CrossbarArbitration a) throws Exception {
        TableStore tables = new TableStore(PORTS);
        pool = new PacketPool(64);
        core = new SwitchCore(PORTS, 2, 4, outputBuffer, tables, new PortCounterArray(PORTS), pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                sent.add(new int[] {port, pool.flow(h)});
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                throw new AssertionError("discarded flow " + pool.flow(h));
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }
        });
        core.arbitration(a);
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        block[TO_3] = 3;
        block[TO_4] = 4;
        tables.apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 12, List.of()));
        for (int p = 1; p <= PORTS; p++) {
            core.portActive(p, 8, 0);
        }
    }

    private void arrive(int inPort, int vl, int dlid, int flow) {
        int h = pool.allocate();
        pool.dlid(h, dlid);
        pool.flow(h, flow);
        pool.vl(h, (byte) vl);
        pool.bytes(h, 100);
        core.packetArrived(inPort, h, 0);
    }

    /** The flows port {@code port} sent, in order. */
    private int[] sentOn(int port) {
        return sent.stream().filter(s -> s[0] == port).mapToInt(s -> s[1]).toArray();
    }

    /**
     * Port 3 is busy (and, with an output buffer of one packet, its buffer full) while input 1 sends
     * a packet out of port 4 and then, like input 2, waits for port 3. Round-robin: port 3 last took
     * input 3, so it counts on from there and around to input 1 first. LRU: input 2 has waited
     * since it was last served (never) and input 1 was served a moment ago: input 2 first.
     */
    @Test
    void anInputAnotherOutputJustServedGoesAfterOneThatWaited() throws Exception {
        for (int outputBuffer = 0; outputBuffer <= 1; outputBuffer++) {
            servedElsewhere(outputBuffer, CrossbarArbitration.ROUND_ROBIN, 101, 200);
            servedElsewhere(outputBuffer, CrossbarArbitration.LRU, 200, 101);
        }
    }

    private void servedElsewhere(int outputBuffer, CrossbarArbitration a, int... order) throws Exception {
        sent.clear();
        build(outputBuffer, a);
        arrive(3, 0, TO_3, 1); // port 3 sends it: busy
        if (outputBuffer > 0) {
            arrive(3, 0, TO_3, 2); // and this one fills its output buffer
        }
        arrive(1, 0, TO_4, 100); // port 4 serves input 1
        arrive(1, 0, TO_3, 101); // then input 1 waits for port 3, as input 2 does
        arrive(2, 0, TO_3, 200);
        for (int i = 0; i < 3; i++) {
            core.linkFree(3, i + 1);
        }
        int[] got = sentOn(3);
        assertEquals(outputBuffer > 0 ? 4 : 3, got.length, Arrays.toString(got));
        assertArrayEquals(order, Arrays.copyOfRange(got, got.length - 2, got.length),
                a.label() + ", output buffer " + outputBuffer + ": " + Arrays.toString(got));
        assertArrayEquals(new int[] {100}, sentOn(4));
    }

    /**
     * Input 2, served once by port 4, then waits for port 3 while inputs 1 and 3 are served by port
     * 4 three times each. LRU: input 2 keeps its place and goes first once port 3 frees, then input
     * 1 and input 3 by when they were last served. Round-robin over port 3 alone: from input 1 on,
     * whatever port 4 did.
     */
    @Test
    void aWaitingInputKeepsItsPlaceUnderLru() throws Exception {
        for (int outputBuffer = 0; outputBuffer <= 1; outputBuffer++) {
            waitsWhileOthersAreServed(outputBuffer, CrossbarArbitration.ROUND_ROBIN, 101, 200, 301);
            waitsWhileOthersAreServed(outputBuffer, CrossbarArbitration.LRU, 200, 101, 301);
        }
    }

    private void waitsWhileOthersAreServed(int outputBuffer, CrossbarArbitration a, int... order) throws Exception {
        sent.clear();
        build(outputBuffer, a);
        arrive(4, 0, TO_3, 1); // port 3 busy
        if (outputBuffer > 0) {
            arrive(4, 0, TO_3, 2); // and its output buffer full
        }
        arrive(2, 0, TO_4, 199);
        core.linkFree(4, 1);
        arrive(2, 0, TO_3, 200); // waits
        for (int k = 0; k < 3; k++) {
            arrive(1, 0, TO_4, 110 + k);
            core.linkFree(4, 2 + 2 * k);
            arrive(3, 0, TO_4, 310 + k);
            core.linkFree(4, 3 + 2 * k);
        }
        arrive(3, 0, TO_3, 301); // input 3 served last: it goes last under LRU
        arrive(1, 0, TO_3, 101);
        for (int i = 0; i < 4; i++) {
            core.linkFree(3, 10 + i);
        }
        int[] got = sentOn(3);
        assertEquals(outputBuffer > 0 ? 5 : 4, got.length, Arrays.toString(got));
        assertArrayEquals(order, Arrays.copyOfRange(got, got.length - 3, got.length),
                a.label() + ", output buffer " + outputBuffer + ": " + Arrays.toString(got));
        assertArrayEquals(new int[] {199, 110, 310, 111, 311, 112, 312}, sentOn(4));
    }

    @Test
    void noArbitrationIsRefused() throws Exception {
        build(0, CrossbarArbitration.ROUND_ROBIN);
        assertThrows(NullPointerException.class, () -> core.arbitration(null));
    }
}
