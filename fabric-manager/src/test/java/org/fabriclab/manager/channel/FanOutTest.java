package org.fabriclab.manager.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fan-out bounds the calls in flight, retries only what is safe to redo, and returns results in the items' order. */
class FanOutTest {
    private final ExecutorService executor = Executors.newFixedThreadPool(8);
    private final NodeChannels channels = new NodeChannels();

    @AfterEach
    void stop() {
        executor.shutdownNow();
        channels.close();
    }

    @Test
    void atMostTheBoundIsInFlightAndResultsComeInOrder() throws Exception {
        FanOut fanOut = new FanOut(channels, executor, 2);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch twoStarted = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<List<FanOut.Result<Integer, Integer>>> done = CompletableFuture.supplyAsync(() -> {
            try {
                return fanOut.run(List.of(5, 4, 3, 2, 1, 0), FanOut.Retry.NONE, i -> {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    twoStarted.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    inFlight.decrementAndGet();
                    return i * 10;
                });
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(twoStarted.await(30, TimeUnit.SECONDS));
        assertEquals(2, inFlight.get(), "two calls in flight, the others wait for a slot");
        release.countDown();
        List<FanOut.Result<Integer, Integer>> results = done.get(30, TimeUnit.SECONDS);
        assertEquals(2, most.get());
        for (int i = 0; i < results.size(); i++) {
            assertEquals(5 - i, results.get(i).item());
            assertEquals((5 - i) * 10, results.get(i).value());
        }
    }

    @Test
    void onlyReadsAreRetriedAndOnlyOnTransientStatuses() throws Exception {
        FanOut fanOut = new FanOut(channels, executor, 4);
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        List<String> items = List.of("flaky", "bad");
        Function<String, String> call = s -> {
            int n = calls.computeIfAbsent(s, k -> new AtomicInteger()).incrementAndGet();
            if (s.equals("bad")) {
                throw Status.INVALID_ARGUMENT.withDescription("no").asRuntimeException();
            }
            if (n < FanOut.ATTEMPTS) {
                throw Status.UNAVAILABLE.withDescription("not yet").asRuntimeException();
            }
            return "ok";
        };
        List<FanOut.Result<String, String>> read = fanOut.run(items, FanOut.Retry.IDEMPOTENT, call);
        assertEquals("ok", read.get(0).value(), "a read is tried again on UNAVAILABLE");
        assertEquals(FanOut.ATTEMPTS, calls.get("flaky").get());
        assertFalse(read.get(1).ok());
        assertEquals(1, calls.get("bad").get(), "INVALID_ARGUMENT is not tried again");
        assertEquals("INVALID_ARGUMENT no", FanOut.describe(read.get(1).failure()));
        calls.clear();
        List<FanOut.Result<String, String>> write = fanOut.run(items, FanOut.Retry.NONE, call);
        assertFalse(write.get(0).ok(), "a write is never tried again");
        assertEquals(1, calls.get("flaky").get());
    }

    /** A fan-out interrupted while its calls still wait for a thread gives every permit back (cancelled tasks never run). */
    @Test
    void anInterruptedFanOutGivesBackThePermitsOfCallsThatNeverStarted() throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor();
        CountDownLatch busy = new CountDownLatch(1);
        try {
            one.execute(() -> {
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            FanOut fanOut = new FanOut(channels, one, 2);
            Thread caller = new Thread(() -> {
                try {
                    fanOut.run(List.of(1, 2, 3), FanOut.Retry.NONE, i -> i);
                } catch (InterruptedException expected) {
                    // the interrupt ends the fan-out; its queued calls are cancelled
                }
            }, "fan-out caller");
            caller.start();
            Waits.until("both permits taken by queued calls", () -> fanOut.availablePermits() == 0);
            caller.interrupt();
            caller.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(caller.isAlive());
            assertEquals(2, fanOut.availablePermits(), "the cancelled calls' permits are back");
        } finally {
            busy.countDown();
            one.shutdownNow();
        }
    }
}
