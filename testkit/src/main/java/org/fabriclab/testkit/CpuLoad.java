package org.fabriclab.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Threads that keep cores busy while a live test runs: a test of time dilation shows that what
 * it measures in model time does not depend on how much CPU the machine leaves the emulation.
 * Closing stops them.
 */
public final class CpuLoad implements AutoCloseable {
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;
    /** Published so the spinning is not optimised away. */
    public volatile long sink;

    /** Starts {@code threads} spinning threads (daemons). */
    public CpuLoad(int threads) {
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(this::spin, "cpu-load-" + i);
            t.setDaemon(true);
            t.start();
            this.threads.add(t);
        }
    }

    private void spin() {
        long x = 1;
        while (running) {
            for (int i = 0; i < 1_000_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            sink = x;
        }
    }

    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
