package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The live sink counts a pair's lost packets by the pair's own numbers, wrap-safe: a long run passes 2^32 of them. */
class FlowSinkTest {
    @Test
    void lossIsCountedBeforeAndAfterThePairNumbersWrap() {
        FlowSink sink = new FlowSink();
        int seq = 0;
        sink.record(1, seq++, 0, 100, 10);
        sink.record(1, seq++, 2, 100, 10); // pair number 1 lost
        assertEquals(1, sink.totals().missing());
        // far along in the run: up to the last number before the wrap, then across it
        sink.record(1, seq++, Integer.MAX_VALUE, 100, 10);
        long before = sink.totals().missing();
        sink.record(1, seq++, Integer.MIN_VALUE, 100, 10);
        sink.record(1, seq++, -1, 100, 10);
        sink.record(1, seq++, 0, 100, 10); // 2^32: the numbers wrapped
        assertEquals(before + (-1 - Integer.MIN_VALUE - 1), sink.totals().missing(), "the gap up to -1 counted");
        long afterWrap = sink.totals().missing();
        sink.record(1, seq++, 2, 100, 10); // number 1 after the wrap lost
        assertEquals(afterWrap + 1, sink.totals().missing(), "a loss after the wrap is still counted");
        sink.record(1, seq++, 1, 100, 10); // ... or it arrives late: overtaken, not lost
        assertEquals(7, sink.totals().packets() - 1);
    }
}
