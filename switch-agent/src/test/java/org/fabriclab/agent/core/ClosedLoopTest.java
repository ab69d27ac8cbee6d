package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The closed-loop microbenchmarks driven by hand: who sends what to whom on each whole message
 * received, and when iterations end and how long they took. {@link Net} delivers every message a
 * fixed time after it was sent, in the order sent, as a fabric without contention would.
 */
class ClosedLoopTest {
    /** What the loop asked for, in order: "from>to@t" for a send, "iteration start..end" for an iteration. */
    private static final class Log implements ClosedLoop.Actions {
        final List<String> done = new ArrayList<>();
        final List<long[]> iterations = new ArrayList<>();
        final ArrayDeque<long[]> sent = new ArrayDeque<>();

        @Override
        public void send(int from, int to, long now) {
            done.add(from + ">" + to + "@" + now);
            sent.add(new long[] {from, to, now});
        }

        @Override
        public void iteration(long start, long end) {
            done.add("iteration " + start + ".." + end);
            iterations.add(new long[] {start, end});
        }

        /** The sends asked for before time {@code t}. */
        long sentBefore(long t) {
            return done.stream().filter(x -> !x.startsWith("iteration")).filter(x -> Long.parseLong(x.substring(x.indexOf('@') + 1)) < t)
                    .count();
        }

        /** Asserts the {@code i}-th iteration ran from {@code start} to {@code end}. */
        void assertIteration(int i, long start, long end, String why) {
            assertEquals(List.of(start, end), List.of(iterations.get(i)[0], iterations.get(i)[1]), why);
        }

        /** What was asked since the last call, emptied. */
        List<String> take() {
            List<String> out = List.copyOf(done);
            done.clear();
            return out;
        }
    }

    /** Delivers each message sent {@code delay} after it was sent, in the order sent, until {@code iterations} have ended. */
    private static void run(ClosedLoop loop, Log log, long delay, int iterations) {
        loop.start(0, log);
        while (log.iterations.size() < iterations) {
            long[] m = log.sent.poll();
            loop.received((int) m[0], (int) m[1], m[2] + delay, log);
        }
    }

    @Test
    void pingPongAnswersAndRankZeroEndsEachRoundTrip() {
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.PING_PONG, 2, 3);
        Log log = new Log();
        loop.start(0, log);
        assertEquals(List.of("0>1@0"), log.take(), "rank 0 pings");
        assertFalse(loop.packetReceived(0, 1));
        assertFalse(loop.packetReceived(0, 1));
        assertTrue(loop.packetReceived(0, 1), "the third of three packets completes the message");
        loop.received(0, 1, 10, log);
        assertEquals(List.of("1>0@10"), log.take(), "rank 1 answers, no iteration yet");
        loop.received(1, 0, 25, log);
        assertEquals(List.of("iteration 0..25", "0>1@25"), log.take(), "the answer ends the round trip; the next ping goes at once");
        loop.received(0, 1, 30, log);
        loop.received(1, 0, 40, log);
        assertEquals(List.of("1>0@30", "iteration 25..40", "0>1@40"), log.take());
    }

    /** A barrier of 8: three rounds, rank r sends to r + 1, r + 2, r + 4; every rank leaves after its third message. */
    @Test
    void barrierOfEightDisseminatesInThreeRounds() {
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.BARRIER, 8, 1);
        Log log = new Log();
        loop.start(0, log);
        List<String> first = log.take();
        assertEquals(List.of("0>1@0", "1>2@0", "2>3@0", "3>4@0", "4>5@0", "5>6@0", "6>7@0", "7>0@0"), first, "round 0: r to r + 1");
        // round 0 arrives at rank 3 from rank 2: it sends round 1 to 5
        loop.received(2, 3, 1, log);
        assertEquals(List.of("3>5@1"), log.take());
        // rank 3's round-2 message (from 7) comes before its round-1 one (from 1): it waits for round 1
        loop.received(7, 3, 2, log);
        assertEquals(List.of(), log.take(), "round 1 not received yet: nothing sent");
        loop.received(1, 3, 3, log);
        assertEquals(List.of("3>7@3", "3>4@3"), log.take(), "rounds 1 and 2 done at once: round 2's message, then the next barrier's first");
        loop.received(5, 3, 3, log); // a packet from a rank that sends to 3 in no round
        assertEquals(List.of(), log.take());

        ClosedLoop fresh = new ClosedLoop(ClosedLoop.Kind.BARRIER, 8, 1);
        Log l = new Log();
        run(fresh, l, 1, 3);
        assertEquals(List.of(0L, 3L), List.of(l.iterations.get(0)[0], l.iterations.get(0)[1]), "three rounds of one time unit");
        assertEquals(List.of(3L, 6L), List.of(l.iterations.get(1)[0], l.iterations.get(1)[1]));
        assertEquals(List.of(6L, 9L), List.of(l.iterations.get(2)[0], l.iterations.get(2)[1]));
        // every round's destinations, in the first barrier: r + 2^k
        List<String> sends = l.done.stream().filter(s -> !s.startsWith("iteration")).toList();
        for (int r = 0; r < 8; r++) {
            for (int k = 0; k < 3; k++) {
                assertTrue(sends.contains(r + ">" + (r + (1 << k)) % 8 + "@" + k), "rank " + r + " round " + k);
            }
        }
        assertEquals(8 * 3 * 3, sends.stream().filter(s -> Long.parseLong(s.substring(s.indexOf('@') + 1)) < 9).count(),
                "eight ranks, three rounds, three barriers");
    }

    /** A barrier of a number of ranks not a power of two: ceil(log2 6) = 3 rounds, mod 6. */
    @Test
    void barrierOfSixTakesThreeRounds() {
        Log l = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.BARRIER, 6, 2), l, 5, 2);
        assertEquals(15, l.iterations.get(0)[1], "three rounds of 5");
        assertEquals(30, l.iterations.get(1)[1]);
        assertTrue(l.done.contains("5>3@10"), "round 2 of rank 5: 5 + 4 mod 6");
    }

    /** A broadcast of 8: the binomial tree 0 -> 1, 2, 4; 1 -> 3, 5; 2 -> 6; 3 -> 7; the iteration ends when 7 has it. */
    @Test
    void broadcastOfEightGoesDownTheBinomialTree() {
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.BROADCAST, 8, 1);
        Log log = new Log();
        loop.start(0, log);
        assertEquals(List.of("0>1@0", "0>2@0", "0>4@0"), log.take());
        loop.received(0, 1, 1, log);
        assertEquals(List.of("1>3@1", "1>5@1"), log.take());
        loop.received(0, 2, 1, log);
        assertEquals(List.of("2>6@1"), log.take());
        loop.received(0, 4, 1, log);
        assertEquals(List.of(), log.take(), "4 is a leaf");
        loop.received(1, 3, 2, log);
        assertEquals(List.of("3>7@2"), log.take());
        loop.received(1, 5, 2, log);
        loop.received(2, 6, 2, log);
        assertEquals(List.of(), log.take());
        loop.received(3, 7, 3, log);
        assertEquals(List.of("iteration 0..3", "0>1@3", "0>2@3", "0>4@3"), log.take(), "every rank has it: the root starts the next");

        Log l = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.BROADCAST, 8, 1), l, 2, 2);
        assertEquals(List.of(6L, 12L), List.of(l.iterations.get(1)[0], l.iterations.get(1)[1]), "three levels of 2");
    }

    /**
     * An all-to-all of 5 by pairwise exchange: four steps, rank r sends to r + 1, r + 2, r + 3, r + 4
     * in turn, each when the step before's message (from r - k) has come; an early message of a
     * later step waits its turn; every rank sends to every other once an iteration.
     */
    @Test
    void allToAllOfFiveExchangesPairwiseInFourSteps() {
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.ALL_TO_ALL, 5, 2);
        Log log = new Log();
        loop.start(0, log);
        assertEquals(List.of("0>1@0", "1>2@0", "2>3@0", "3>4@0", "4>0@0"), log.take(), "step 1: r to r + 1");
        loop.received(3, 0, 4, log); // step 2's message to 0 (from 0 - 2 = 3) before step 1's
        assertEquals(List.of(), log.take(), "step 1 not received yet");
        loop.received(4, 0, 5, log);
        assertEquals(List.of("0>2@5", "0>3@5"), log.take(), "steps 1 and 2 done at once: steps 2 and 3 sent");
        assertFalse(loop.packetReceived(1, 0));
        assertTrue(loop.packetReceived(1, 0), "two packets a message, counted per sender");

        Log l = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.ALL_TO_ALL, 5, 1), l, 3, 2);
        assertEquals(List.of(0L, 12L), List.of(l.iterations.get(0)[0], l.iterations.get(0)[1]), "four steps of 3");
        assertEquals(List.of(12L, 24L), List.of(l.iterations.get(1)[0], l.iterations.get(1)[1]));
        List<String> first = l.done.stream().filter(x -> !x.startsWith("iteration")).filter(x -> Long.parseLong(x.substring(x.indexOf('@') + 1)) < 12)
                .toList();
        assertEquals(20, first.size(), "5 ranks x 4 others");
        for (int r = 0; r < 5; r++) {
            for (int k = 1; k < 5; k++) {
                assertTrue(first.contains(r + ">" + (r + k) % 5 + "@" + 3 * (k - 1)), "rank " + r + " step " + k + ": " + first);
            }
        }
    }

    /**
     * A ring allreduce of 4: six steps, every one from rank r to r + 1, each when the step before's
     * message from r - 1 has come; a predecessor's messages that come early are counted and let the
     * rank through as many steps at once.
     */
    @Test
    void allreduceOfFourGoesRoundTheRingInSixSteps() {
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.ALLREDUCE, 4, 1);
        Log log = new Log();
        loop.start(0, log);
        assertEquals(List.of("0>1@0", "1>2@0", "2>3@0", "3>0@0"), log.take(), "step 1: r to r + 1");
        loop.received(2, 0, 1, log);
        assertEquals(List.of(), log.take(), "not 0's predecessor: ignored");
        loop.received(3, 0, 1, log);
        assertEquals(List.of("0>1@1"), log.take(), "step 2");
        loop.received(3, 0, 2, log);
        loop.received(3, 0, 2, log);
        assertEquals(List.of("0>1@2", "0>1@2"), log.take(), "steps 3 and 4, one message each");

        Log l = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.ALLREDUCE, 4, 1), l, 2, 3);
        l.assertIteration(0, 0, 12, "six steps of 2");
        l.assertIteration(2, 24, 36, "");
        assertEquals(4 * 6, l.sentBefore(12), "four ranks, six steps");
        assertTrue(l.done.stream().filter(x -> !x.startsWith("iteration")).allMatch(x -> {
            int from = Integer.parseInt(x.substring(0, x.indexOf('>')));
            return Integer.parseInt(x.substring(x.indexOf('>') + 1, x.indexOf('@'))) == (from + 1) % 4;
        }), "always to the next rank");
    }

    /**
     * Halo3d of 12 ranks on a 2 x 2 x 3 grid: rank 0 at (0, 0, 0) has one neighbour along x (1), one
     * along y (2) and two along z (8 below, 4 above, wrapping); it goes through the phases x, y, z
     * in turn, sending a phase's messages when it enters it, and its iteration ends only when the
     * last neighbour's message has come.
     */
    @Test
    void halo3dGoesThroughItsPhasesAndWaitsForEveryNeighbour() {
        assertArrayEquals(new int[] {2, 2, 3}, TrafficPlan.grid3d(12));
        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.HALO3D, 12, 1);
        Log log = new Log();
        loop.start(0, log);
        List<String> first = log.take();
        assertEquals(12, first.size(), "every rank's phase x: its one x neighbour");
        assertTrue(first.containsAll(List.of("0>1@0", "1>0@0", "2>3@0", "11>10@0")), first.toString());
        loop.received(2, 0, 1, log);
        assertEquals(List.of(), log.take(), "phase y's message before phase x's: it waits");
        loop.received(1, 0, 2, log);
        assertEquals(List.of("0>2@2", "0>8@2", "0>4@2"), log.take(), "x, then y at once (its message is here), then z's two");
        loop.received(8, 0, 3, log);
        assertEquals(List.of(), log.take(), "one of z's two neighbours: it waits for the other");

        // the same as a whole: every message but 4's to 0 delivered; no iteration ends, 0 never starts the next
        ClosedLoop held = new ClosedLoop(ClosedLoop.Kind.HALO3D, 12, 1);
        Log l = new Log();
        held.start(0, l);
        long t = 0;
        while (!l.sent.isEmpty()) {
            long[] m = l.sent.poll();
            if (m[0] == 4 && m[1] == 0) {
                continue;
            }
            held.received((int) m[0], (int) m[1], ++t, l);
            assertTrue(l.iterations.isEmpty(), "no iteration ends without 4's message to 0");
        }
        assertEquals(1, l.done.stream().filter(x -> x.startsWith("0>1@")).count(), "rank 0 never enters the next iteration");
        held.received(4, 0, ++t, l);
        assertEquals(1, l.iterations.size(), "its last message ends the iteration");

        Log timed = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.HALO3D, 12, 1), timed, 5, 3);
        timed.assertIteration(0, 0, 15, "three phases of 5");
        timed.assertIteration(2, 30, 45, "");
        assertEquals(12 * 4, timed.sentBefore(15), "twelve ranks, four neighbours each");
    }

    /** The grid and the neighbours are the open-loop halo3d's: the same ranks, in the same order. */
    @Test
    void halo3dLoopSendsToTheOpenLoopHalo3dNeighbours() {
        for (int n : new int[] {2, 7, 8, 12, 16, 27, 36}) {
            Log l = new Log();
            run(new ClosedLoop(ClosedLoop.Kind.HALO3D, n, 1), l, 3, 2);
            int[][] open = TrafficPlan.halo3d(n);
            for (int r = 0; r < n; r++) {
                int rank = r;
                List<Integer> to = l.done.stream().filter(x -> x.startsWith(rank + ">"))
                        .map(x -> Integer.parseInt(x.substring(x.indexOf('>') + 1, x.indexOf('@')))).limit(open[r].length).toList();
                assertEquals(java.util.Arrays.stream(open[r]).boxed().toList(), to, n + " ranks, rank " + r);
            }
        }
    }

    /**
     * Sweep3d of 16 ranks on a 4 x 4 grid, with every message a time unit on its way: the first
     * sweep is a wavefront from (0, 0), rank (x, y) sending its first message at x + y, never before
     * its upstream ranks' messages came; held back, one message stops everything downstream of it.
     */
    @Test
    void sweep3dIsAWavefrontFromEachCorner() {
        assertArrayEquals(new int[] {4, 4}, ClosedLoop.grid2d(16));
        assertArrayEquals(new int[] {2, 3}, ClosedLoop.grid2d(6));
        assertArrayEquals(new int[] {1, 7}, ClosedLoop.grid2d(7));
        Log l = new Log();
        run(new ClosedLoop(ClosedLoop.Kind.SWEEP3D, 16, 1), l, 1, 3);
        for (int r = 0; r < 15; r++) {
            int rank = r;
            String firstSend = l.done.stream().filter(x -> x.startsWith(rank + ">")).findFirst().orElseThrow();
            assertEquals(r % 4 + r / 4, Long.parseLong(firstSend.substring(firstSend.indexOf('@') + 1)), "rank " + r + ": " + firstSend);
            int to = Integer.parseInt(firstSend.substring(firstSend.indexOf('>') + 1, firstSend.indexOf('@')));
            assertTrue(to == r + 1 || to == r + 4, "downstream of the first sweep: x + 1 or y + 1, not " + to);
        }
        assertEquals("15>14@6", l.done.stream().filter(x -> x.startsWith("15>")).findFirst().orElseThrow(),
                "(3, 3) ends the first sweep at 6 and sends nothing in it; the second, from (3, 0), reaches it at 6 too, and goes on in -x");
        assertTrue(l.done.stream().filter(x -> !x.startsWith("iteration")).allMatch(x -> {
            int from = Integer.parseInt(x.substring(0, x.indexOf('>')));
            int to = Integer.parseInt(x.substring(x.indexOf('>') + 1, x.indexOf('@')));
            return Math.abs(from % 4 - to % 4) + Math.abs(from / 4 - to / 4) == 1;
        }), "only to a neighbour on the grid, not wrapping");

        ClosedLoop loop = new ClosedLoop(ClosedLoop.Kind.SWEEP3D, 4, 1);
        Log log = new Log();
        loop.start(0, log);
        // ranks 0 (0, 0), 1 (1, 0), 2 (0, 1), 3 (1, 1): the corner sends both blocks to 1 and 2, x first; the rest wait
        assertEquals(List.of("0>1@0", "0>2@0", "0>1@0", "0>2@0"), log.take());
        loop.received(0, 1, 1, log);
        assertEquals(List.of("1>3@1"), log.take(), "rank 1's block 0 goes on in y");
        loop.received(1, 3, 2, log);
        assertEquals(List.of(), log.take(), "rank 3 waits for rank 2's too");
        loop.received(0, 2, 2, log);
        loop.received(2, 3, 3, log);
        assertEquals(List.of("2>3@2"), log.take(), "block 0 of rank 3 done; it sends nothing in the first sweep");
    }

    @Test
    void messagesARankMayQueueAtOnce() {
        assertEquals(1, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.PING_PONG, 2));
        assertEquals(5, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.BROADCAST, 32), "the root's children: 1, 2, 4, 8, 16");
        assertEquals(3, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.BROADCAST, 5), "1, 2, 4");
        assertEquals(6, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.BARRIER, 8), "two barriers of three rounds");
        assertEquals(30, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.ALL_TO_ALL, 16), "two all-to-alls of 15 steps");
        assertEquals(16, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.ALLREDUCE, 16), "a predecessor n - 1 steps ahead at most");
        assertEquals(8, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.HALO3D, 16), "2 x 2 x 4: four phases of up to two");
        assertEquals(4, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.HALO3D, 8), "2 x 2 x 2: four phases of one");
        assertEquals(2, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.HALO3D, 2), "1 x 1 x 2: two phases of one");
        assertEquals(8, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.SWEEP3D, 16), "two sweeps of two blocks, x and y");
        assertEquals(4, ClosedLoop.messagesQueuedAtOnce(ClosedLoop.Kind.SWEEP3D, 7), "1 x 7: y only");
    }

    @Test
    void refusesWhatCannotRun() {
        assertEquals("ping-pong runs between two ranks, not 3",
                assertThrows(IllegalArgumentException.class, () -> new ClosedLoop(ClosedLoop.Kind.PING_PONG, 3, 1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ClosedLoop(ClosedLoop.Kind.BARRIER, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new ClosedLoop(ClosedLoop.Kind.BROADCAST, 4, 0));
        assertEquals(ClosedLoop.Kind.BARRIER, ClosedLoop.Kind.byCliName("barrier"));
        assertNull(ClosedLoop.Kind.byCliName("all-to-all"), "the open-loop pattern");
        assertEquals(ClosedLoop.Kind.ALL_TO_ALL, ClosedLoop.Kind.byCliName("alltoall"));
        assertNull(ClosedLoop.Kind.byCliName("halo3d"), "the open-loop pattern keeps its name");
        assertEquals(ClosedLoop.Kind.HALO3D, ClosedLoop.Kind.byCliName("halo3d-loop"));
        assertEquals(ClosedLoop.Kind.SWEEP3D, ClosedLoop.Kind.byCliName("sweep3d"));
        assertEquals(7, ClosedLoop.destinationOf(ClosedLoop.destinationFlow(7)));
        assertEquals(-1, ClosedLoop.destinationOf(-1), "the pattern's flow names no destination");
        assertEquals(-1, ClosedLoop.destinationOf(3), "nor does a flow's number");
    }
}
