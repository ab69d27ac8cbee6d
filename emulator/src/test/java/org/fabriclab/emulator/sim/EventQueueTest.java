package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The calendar queue against the obvious one: a priority queue ordered by time, then by when an event was scheduled. */
class EventQueueTest {
    /** An event as the reference queue keeps it. */
    private record Pending(long at, long order, long ev) {
    }

    @Test
    void eventsComeOutByTimeThenInTheOrderTheyWereScheduled() {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            EventQueue q = new EventQueue(4);
            PriorityQueue<Pending> ref = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
            long now = 0;
            long order = 0;
            int taken = 0;
            for (int step = 0; step < 20_000; step++) {
                // a mix of what the simulator schedules: now (a credit's cascade), short delays
                // (the wheel), delays beyond the wheel (the heap), and several at one instant
                int pushes = r.nextInt(3);
                for (int i = 0; i < pushes; i++) {
                    long delay = switch (r.nextInt(4)) {
                        case 0 -> 0;
                        case 1 -> r.nextInt(200);
                        case 2 -> EventQueue.WHEEL - 2 + r.nextInt(4);
                        default -> r.nextLong(5L * EventQueue.WHEEL);
                    };
                    long ev = EventQueue.event(r.nextInt(6), r.nextInt(EventQueue.MAX_NODES), r.nextInt(EventQueue.MAX_PORTS), r.nextInt());
                    q.push(now + delay, ev);
                    ref.add(new Pending(now + delay, order++, ev));
                }
                if (!ref.isEmpty() && r.nextInt(5) < 3) {
                    Pending expected = ref.poll();
                    assertEquals(expected.at, q.peekTime(), "time of the earliest event, seed " + seed + " step " + step);
                    assertEquals(expected.ev, q.pop(), "seed " + seed + " step " + step);
                    assertEquals(expected.at, q.poppedTime());
                    now = expected.at;
                    taken++;
                }
            }
            while (!ref.isEmpty()) {
                Pending expected = ref.poll();
                assertEquals(expected.ev, q.pop());
                assertEquals(expected.at, q.poppedTime());
            }
            assertTrue(q.isEmpty());
            assertTrue(taken > 1000);
        }
    }

    /**
     * Ties stay first-scheduled-first when the heap's 24-bit order counter runs out: three events
     * for one instant beyond the wheel, the first scheduled at the start, the second as the
     * 2^24th heap event, the third after it, come out in the order scheduled (the counter used to
     * wrap, and the third, numbered 0 again, could go first).
     */
    @Test
    void tiesStayInOrderAcrossTheOrderCountersLimit() {
        EventQueue q = new EventQueue(16);
        long at = (EventQueue.ORDER_LIMIT + 2L) * EventQueue.WHEEL;
        long first = EventQueue.event(2, 2, 0, 0);
        long second = EventQueue.event(2, 2, 0, 1);
        long third = EventQueue.event(2, 2, 0, 2);
        q.push(at, first);
        long now = 0;
        for (int i = 1; i < EventQueue.ORDER_LIMIT - 1; i++) { // heap events one at a time, each taken before the next
            q.push(now + EventQueue.WHEEL, EventQueue.event(0, 0, 0, i));
            assertEquals(i, EventQueue.arg(q.pop()));
            now = q.poppedTime();
        }
        q.push(at, second); // the last order number below the limit
        q.push(at, third); // beyond it
        assertEquals(first, q.pop());
        assertEquals(second, q.pop());
        assertEquals(third, q.pop());
        assertTrue(q.isEmpty());
    }

    @Test
    void anEventKeepsItsFields() {
        long ev = EventQueue.event(5, EventQueue.MAX_NODES - 1, EventQueue.MAX_PORTS - 1, -7);
        assertEquals(5, EventQueue.type(ev));
        assertEquals(EventQueue.MAX_NODES - 1, EventQueue.node(ev));
        assertEquals(EventQueue.MAX_PORTS - 1, EventQueue.port(ev));
        assertEquals(-7, EventQueue.arg(ev));
        long toPeer = EventQueue.event(0, 1234, 17, 0);
        assertEquals(EventQueue.event(3, 1234, 17, -1), EventQueue.with(toPeer, 3, -1), "a template filled in is the event made whole");
        long zero = EventQueue.event(0, 0, 0, 0);
        assertEquals(0, EventQueue.type(zero) + EventQueue.node(zero) + EventQueue.port(zero) + EventQueue.arg(zero));
    }

    @Test
    void aLongQuietGapJumpsStraightToTheNextEvent() {
        EventQueue q = new EventQueue(4);
        q.push(EventQueue.MAX_TIME - 1, EventQueue.event(1, 2, 3, 4));
        q.push(10, EventQueue.event(0, 0, 0, 0));
        assertEquals(10, q.peekTime());
        q.pop();
        assertEquals(EventQueue.MAX_TIME - 1, q.peekTime());
        assertEquals(EventQueue.event(1, 2, 3, 4), q.pop());
        assertTrue(q.isEmpty());
    }

    /**
     * The windowed loop's take: events before the window's end come out in order, and asking moves
     * the clock no further than the end, so what the window's events cause can still be scheduled
     * at its end (in the wheel and from beyond it, in the heap).
     */
    @Test
    void eventsBeforeAnEndComeOutAndTheClockStaysBeforeIt() {
        for (long far : new long[] {100, 10L * EventQueue.WHEEL}) {
            EventQueue q = new EventQueue(4);
            q.push(5, EventQueue.event(1, 1, 0, 0));
            q.push(far, EventQueue.event(1, 2, 0, 0));
            assertTrue(q.hasBefore(50));
            assertEquals(EventQueue.event(1, 1, 0, 0), q.pop());
            assertEquals(5, q.poppedTime());
            assertFalse(q.hasBefore(50));
            q.push(50, EventQueue.event(1, 3, 0, 0)); // at the end: must not land a lap late
            assertFalse(q.hasBefore(50));
            assertTrue(q.hasBefore(51));
            assertEquals(EventQueue.event(1, 3, 0, 0), q.pop());
            assertEquals(50, q.poppedTime());
            assertFalse(q.hasBefore(far));
            assertEquals(far, q.peekTime());
            assertEquals(EventQueue.event(1, 2, 0, 0), q.pop());
            assertFalse(q.hasBefore(Long.MAX_VALUE));
        }
    }
}
