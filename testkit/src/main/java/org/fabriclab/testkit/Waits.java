package org.fabriclab.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * Waits on named conditions (Awaitility), the tests' one way to wait for something to happen in
 * another thread: no sleep as synchronisation. The bound is generous on purpose (a loaded machine
 * must never fail a test by its clock: only a condition that never comes does), and a failure
 * names the condition that did not come.
 */
public final class Waits {
    /** How long a condition may take before the test fails: long enough for a machine kept busy by other builds. */
    public static final Duration LIMIT = Duration.ofSeconds(120);
    /** How often a condition is asked. */
    public static final Duration POLL = Duration.ofMillis(10);

    private Waits() {
    }

    /** Awaitility's {@code await(condition)} with the project's bound and polling, to be finished by {@code until(...)}. */
    public static ConditionFactory await(String condition) {
        return Awaitility.await(condition).atMost(LIMIT).pollDelay(Duration.ZERO).pollInterval(POLL);
    }

    /** Returns once {@code condition} holds; fails naming it if it does not within {@link #LIMIT}. */
    public static void until(String condition, BooleanSupplier holds) {
        await(condition).until(holds::getAsBoolean);
    }

    /**
     * Returns the value once it has stopped changing: the same at two asks {@code quiet} apart (a
     * count of packets or sweeps that settles when what drives it has run out). Fails naming
     * {@code what} if it still changes after {@link #LIMIT}.
     */
    public static long settled(String what, LongSupplier value, Duration quiet) {
        long[] last = {Long.MIN_VALUE};
        await(what + " settles").pollInterval(quiet).until(() -> {
            long now = value.getAsLong();
            boolean same = now == last[0];
            last[0] = now;
            return same;
        });
        return last[0];
    }
}
