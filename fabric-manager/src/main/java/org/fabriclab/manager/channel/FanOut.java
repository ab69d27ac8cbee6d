package org.fabriclab.manager.channel;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import org.fabriclab.proto.v1.ManagementGrpc;

/**
 * One management call per node, fanned out: how discovery, light sweeps and the heavy sweep's
 * pushes talk to many nodes at once. At most {@code maxInFlight} calls are in flight (a thousand
 * nodes must not open a thousand calls); every stub from {@link #stub} carries the deadline; calls
 * that are safe to redo ({@link Retry#IDEMPOTENT}: reads) are retried on UNAVAILABLE and
 * DEADLINE_EXCEEDED; writes never are (a versioned write that timed out may have landed). The
 * results come back in the order of the items, each a value or the failure, so that a caller
 * names the node that failed and decides what a failure means.
 *
 * <p>Thread-safety: any thread may fan out; the calls run on the executor's threads.
 */
public final class FanOut {
    /** Attempts of a call that is retried. */
    public static final int ATTEMPTS = 3;

    /** Whether a call may be tried again after a transient failure. */
    public enum Retry { NONE, IDEMPOTENT }

    /** One item's result: its value, or the failure that ended its call (null when it succeeded). */
    public record Result<I, T>(I item, T value, Throwable failure) {
        public boolean ok() {
            return failure == null;
        }
    }

    private final NodeChannels channels;
    private final ExecutorService executor;
    private final Semaphore inFlight;

    /** Calls on {@code executor}, at most {@code maxInFlight} at a time, each stub with the channels' standard deadline. */
    public FanOut(NodeChannels channels, ExecutorService executor, int maxInFlight) {
        this.channels = channels;
        this.executor = executor;
        this.inFlight = new Semaphore(maxInFlight);
    }

    /** Permits free now: every one is back once no fan-out is running (for tests). */
    int availablePermits() {
        return inFlight.availablePermits();
    }

    /** The pool the calls run on (also lent to the sweep's route analysis). */
    public ExecutorService executor() {
        return executor;
    }

    /** A blocking stub for {@code endpoint} whose calls end at the standard deadline from now ({@link NodeChannels#blocking}). */
    public ManagementGrpc.ManagementBlockingStub stub(String endpoint) {
        return channels.blocking(endpoint);
    }

    /**
     * Runs {@code call} for every item, {@code retry} saying whether a transient failure is tried
     * again, and waits for all of them.
     *
     * @return one result per item, in the items' order
     */
    public <I, T> List<Result<I, T>> run(List<I> items, Retry retry, Function<I, T> call) throws InterruptedException {
        List<Future<T>> futures = new ArrayList<>(items.size());
        try {
            for (I item : items) {
                inFlight.acquire();
                // the permit goes back when the task is done, however: run, failed or cancelled before it
                // started (a cancelled task never runs its body, so a release there would be lost)
                FutureTask<T> task = new FutureTask<>(() -> attempt(item, retry, call)) {
                    @Override
                    protected void done() {
                        inFlight.release();
                    }
                };
                try {
                    executor.execute(task);
                } catch (RuntimeException e) {
                    inFlight.release();
                    throw e;
                }
                futures.add(task);
            }
            List<Result<I, T>> out = new ArrayList<>(items.size());
            for (int i = 0; i < items.size(); i++) {
                try {
                    out.add(new Result<>(items.get(i), futures.get(i).get(), null));
                } catch (ExecutionException e) {
                    out.add(new Result<>(items.get(i), null, e.getCause()));
                }
            }
            return out;
        } catch (InterruptedException e) {
            futures.forEach(f -> f.cancel(true));
            throw e;
        }
    }

    private static <I, T> T attempt(I item, Retry retry, Function<I, T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.apply(item);
            } catch (StatusRuntimeException e) {
                Status.Code c = e.getStatus().getCode();
                if (retry == Retry.NONE || attempt >= ATTEMPTS || (c != Status.Code.UNAVAILABLE && c != Status.Code.DEADLINE_EXCEEDED)) {
                    throw e;
                }
            }
        }
    }

    /** A failure as an operator reads it: the gRPC status and its description, else the exception. */
    public static String describe(Throwable t) {
        return t instanceof StatusRuntimeException s ? s.getStatus().getCode() + " " + s.getStatus().getDescription() : t.toString();
    }
}
