package org.fabriclab.agent.link;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.fabriclab.cli.TimeDilation;

/**
 * The live plane's model time under a time dilation D: {@code model = m0 + (wall - w0) / D}, a
 * fabric's one clock (every node of a JVM shares one; a process has its own, told D by the
 * management RPC). The cores run on model time, so a link of rate R stays busy for bytes / R in
 * model time, i.e. D times longer in wall time, and every counter, wait and latency is in model
 * time without the cores knowing. A change of D re-anchors the line at the current instant, so
 * model time is continuous (never jumps, never runs backwards) across changes.
 *
 * <p>D = 1 is real time: model time is then {@link System#nanoTime()} itself, as before dilation.
 * Readable from any thread; changes are serialised.
 */
public final class ModelClock {
    /** The largest dilation accepted ({@link TimeDilation#MAX}). */
    public static final double MAX_DILATION = TimeDilation.MAX;

    private record Line(long model0, long wall0, double dilation) {
        long model(long wall) {
            return model0 + (long) ((wall - wall0) / dilation);
        }
    }

    /**
     * The JVM's clock for nodes not given one: real time until something sets its dilation (a
     * switch-agent process's one switch, told by the daemon). A fabric emulated in a JVM runs on a
     * clock of its own, shared by its nodes.
     */
    public static final ModelClock SYSTEM = new ModelClock();

    private final LongSupplier wall;
    private volatile Line line;
    /** The lag probe of every event loop driving a node on this clock. */
    private final Map<EventLoop, LagProbe> probes = new IdentityHashMap<>();

    /** Real time (D = 1) on the system's monotonic clock. */
    public ModelClock() {
        this(System::nanoTime, 1);
    }

    /** A clock reading {@code wall} (tests feed their own), starting at dilation {@code d}, model = wall now. */
    public ModelClock(LongSupplier wall, double d) {
        check(d);
        this.wall = wall;
        long w = wall.getAsLong();
        line = new Line(w, w, d);
    }

    /** Model time now, in nanoseconds. */
    public long nanos() {
        return line.model(wall.getAsLong());
    }

    /**
     * A clock's line: {@code model = modelNs + (wall - wallNs) / dilation}, the wall clock being
     * {@link System#nanoTime()} (the machine's monotonic clock, the same in every process of one
     * machine). Processes that adopt one line ({@link #adopt}) read one model time: a switch
     * process and the fabric that started it agree on when a packet arrived.
     */
    public record Anchor(long modelNs, long wallNs, double dilation) {
    }

    /** The line in force. */
    public Anchor anchor() {
        Line l = line;
        return new Anchor(l.model0(), l.wall0(), l.dilation());
    }

    /**
     * Runs on {@code a} from now on (another process's line, on the same machine's monotonic
     * clock). A clock that ran on the same line runs on without a jump; one that did not moves
     * once to the line's model time. Throws if the dilation is out of 1..{@link #MAX_DILATION}.
     */
    public synchronized void adopt(Anchor a) {
        check(a.dilation());
        line = new Line(a.modelNs(), a.wallNs(), a.dilation());
    }

    /** The dilation in force: wall nanoseconds per model nanosecond. */
    public double dilation() {
        return line.dilation();
    }

    /** Sets D from now on; model time runs on from where it is. Throws if {@code d} is out of 1..{@link #MAX_DILATION}. */
    public synchronized void dilation(double d) {
        check(d);
        long w = wall.getAsLong();
        Line l = line;
        line = new Line(l.model(w), w, d);
    }

    /** The wall time a model interval takes at the dilation in force (for timers). */
    public long wallNanos(long modelNanos) {
        return (long) (modelNanos * line.dilation());
    }

    /** The model time a wall interval stands for at the dilation in force (for lags measured on the wall clock). */
    public long modelNanos(long wallNanos) {
        return (long) (wallNanos / line.dilation());
    }

    /** The probe of {@code loop}, started on first use: one per event loop, whatever the nodes on it. */
    synchronized LagProbe probe(EventLoop loop) {
        return probes.computeIfAbsent(loop, l -> new LagProbe(l, this));
    }

    /** Every probe started so far (a snapshot). */
    synchronized List<LagProbe> probes() {
        return new ArrayList<>(probes.values());
    }

    private static void check(double d) {
        String why = TimeDilation.invalid(d);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }
}
