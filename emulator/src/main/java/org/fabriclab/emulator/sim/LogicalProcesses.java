package org.fabriclab.emulator.sim;

import java.util.Arrays;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The fabric cut into logical processes for the windowed event loop ({@link Simulation.Scheduler#WINDOWED},
 * experimental, issue 16): a switch with the hosts cabled to it is one process (and any two nodes
 * joined by a link without delay are one), and the lookahead is the least delay of a link between
 * two processes. Whatever one process sends another (a packet, a credit, Q-adaptive's feedback)
 * crosses such a link, so it lands at least a lookahead after it was sent: the events of a window
 * of one lookahead can run one process after another, each in its own time order, without one
 * process's event changing what another's window holds.
 *
 * <p>Holds the current window's events: {@link #collect}ed from the queue in time order, {@link
 * #sortWindow sorted} by process, then {@link #take}n one process after another, each process's
 * in time order with what it schedules for itself within the window ({@link #addLocal}; ties in
 * the order they reached it); counts what the windows held ({@link #stats}). Nothing is allocated
 * per event once the arrays have grown. Confined to the simulation's thread.
 */
final class LogicalProcesses {
    /** The widest window, whatever the lookahead (a fabric of one process has none): keeps the lists short. */
    static final long MAX_WINDOW_NS = 1024;
    /** Bins of the events-per-process-per-window histogram: 1, 2, 3-4, 5-8, ... 2^(BINS-2)+1 and above. */
    static final int BINS = 9;
    private static final int FIRST_WINDOW = 1024;
    private static final int FIRST_LOCAL = 16;

    private final int[] processOfNode;
    private final int[] processOfEndpoint;
    private final int count;
    private final long lookaheadNs;
    // the window's events as they came from the queue (time order): time, event and process of each
    private long[] inTime = new long[FIRST_WINDOW];
    private long[] inEvent = new long[FIRST_WINDOW];
    private int[] inProcess = new int[FIRST_WINDOW];
    private int collected;
    /** The same events by process (in {@link #active}'s order), each process's in time order: time and event side by side. */
    private long[] sorted = new long[2 * FIRST_WINDOW];
    /** Per process, its events in the window, and where they start in {@link #sorted} (then the next to fill). */
    private final int[] countOf;
    private final int[] startOf;
    private final int[] fill;
    /** The processes with events in the current window, in the order their first came. */
    private final int[] active;
    private int activeCount;
    // the running process: its part of sorted still to take, and what it scheduled for itself (time and event side by side)
    private int running = -1;
    private int segmentNext;
    private int segmentEnd;
    private long[] local = new long[2 * FIRST_LOCAL];
    private int localNext;
    private int localSize;
    /** Where in {@link #local} the event {@link #addLocal}ed last went (-1: none yet of the running process). */
    private int lastLocal = -1;
    private long takenTime;
    /** The current window's start: the earliest pending event's time when it opened. */
    private long windowStart;
    // what the windows held
    private long windows;
    private long batches;
    private long batchedEvents;
    private long localEvents;
    private final long[] histogram = new long[BINS];

    private LogicalProcesses(int[] processOfNode, int[] processOfEndpoint, int count, long lookaheadNs) {
        this.processOfNode = processOfNode;
        this.processOfEndpoint = processOfEndpoint;
        this.count = count;
        this.lookaheadNs = lookaheadNs;
        countOf = new int[count];
        startOf = new int[count];
        fill = new int[count];
        active = new int[count];
    }

    /** {@code f}'s processes, its links' delays ({@code delayNs}, per global port) giving the lookahead. */
    static LogicalProcesses of(Fabric f, long[] delayNs) {
        int nodes = f.nodeCount();
        int[] parent = new int[nodes];
        for (int n = 0; n < nodes; n++) {
            parent[n] = n;
        }
        for (int g = 0; g < f.globalPortCount(); g++) {
            int peer = f.peerNode(g);
            int n = f.nodeOfGlobalPort(g);
            if (peer != Fabric.NONE && (!f.isSwitch(n) || !f.isSwitch(peer) || delayNs[g] <= 0)) {
                union(parent, n, peer);
            }
        }
        int[] number = new int[nodes];
        Arrays.fill(number, -1);
        int[] processOfNode = new int[nodes];
        int count = 0;
        for (int n = 0; n < nodes; n++) {
            int root = find(parent, n);
            if (number[root] < 0) {
                number[root] = count++;
            }
            processOfNode[n] = number[root];
        }
        long lookahead = MAX_WINDOW_NS;
        for (int g = 0; g < f.globalPortCount(); g++) {
            int peer = f.peerNode(g);
            if (peer != Fabric.NONE && processOfNode[peer] != processOfNode[f.nodeOfGlobalPort(g)]) {
                lookahead = Math.min(lookahead, delayNs[g]);
            }
        }
        int[] processOfEndpoint = new int[f.endpointCount()];
        for (int e = 0; e < processOfEndpoint.length; e++) {
            processOfEndpoint[e] = processOfNode[f.endpointNode(e)];
        }
        return new LogicalProcesses(processOfNode, processOfEndpoint, count, lookahead);
    }

    private static int find(int[] parent, int n) {
        while (parent[n] != n) {
            parent[n] = parent[parent[n]];
            n = parent[n];
        }
        return n;
    }

    private static void union(int[] parent, int a, int b) {
        int ra = find(parent, a);
        int rb = find(parent, b);
        if (ra != rb) {
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }

    /** Processes. */
    int count() {
        return count;
    }

    /** The least delay of a link between two processes ({@link #MAX_WINDOW_NS} at most): a window's width. */
    long lookaheadNs() {
        return lookaheadNs;
    }

    /** The process fabric node {@code node} is in. */
    int ofNode(int node) {
        return processOfNode[node];
    }

    /** The process endpoint {@code e} (its host node) is in. */
    int ofEndpoint(int e) {
        return processOfEndpoint[e];
    }

    /** A window opens at {@code start}, the earliest pending event's time; its events are then {@link #collect}ed. */
    void openWindow(long start) {
        windowStart = start;
    }

    /**
     * The running process schedules event {@code ev} at {@code at} for process {@code p}, to go to
     * the queue: unless it is the running process's own (beyond the window), it must land at least
     * a lookahead after the window's start, or {@code p} may already have run past {@code at} in
     * this window. Always on, not an {@code assert}: a run that broke it would report a wrong run
     * without a word. One compare, on the path of the events that leave their window only.
     *
     * @throws IllegalStateException naming the event, its time, the window and the lookahead
     */
    void checkLanding(int p, long at, long ev) {
        if (p != running && at < windowStart + lookaheadNs) {
            throw lookaheadBroken(p, at, ev);
        }
    }

    private IllegalStateException lookaheadBroken(int p, long at, long ev) {
        return new IllegalStateException(String.format("the windowed scheduler's lookahead does not hold: process %d scheduled %s for "
                        + "process %d at %d ns, less than the lookahead (%d ns) after its window's start at %d ns, so process %d may "
                        + "already have run past it; the fabric's cut into processes is wrong (report this with the command line)",
                running, Simulation.describeEvent(ev), p, at, lookaheadNs, windowStart, p));
    }

    /** Event {@code ev} at {@code at}, of process {@code p}, is in the window: the queue gives them in time order. */
    void collect(int p, long at, long ev) {
        int n = collected;
        if (n == inTime.length) {
            inTime = Arrays.copyOf(inTime, 2 * n);
            inEvent = Arrays.copyOf(inEvent, 2 * n);
            inProcess = Arrays.copyOf(inProcess, 2 * n);
            sorted = Arrays.copyOf(sorted, 4 * n);
        }
        inTime[n] = at;
        inEvent[n] = ev;
        inProcess[n] = p;
        collected = n + 1;
        if (countOf[p]++ == 0) {
            active[activeCount++] = p;
        }
    }

    /**
     * Every event of the window collected: puts them in order by process (a counting sort, stable,
     * so each process's stay in time order), into one array the processes then read in turn,
     * instead of a list per process written all over memory as the events come.
     */
    void sortWindow() {
        int at = 0;
        for (int i = 0; i < activeCount; i++) {
            int p = active[i];
            startOf[p] = at;
            fill[p] = at;
            at += countOf[p];
        }
        long[] t = inTime;
        long[] e = inEvent;
        int[] q = inProcess;
        long[] out = sorted;
        for (int k = 0; k < collected; k++) {
            int j = fill[q[k]]++;
            out[2 * j] = t[k];
            out[2 * j + 1] = e[k];
        }
    }

    /** Processes with events in the current window. */
    int activeCount() {
        return activeCount;
    }

    /** The {@code i}th process with events in the current window, in the order their first came. */
    int active(int i) {
        return active[i];
    }

    /** Process {@code p}'s events of the window run now ({@link #take}); the one before had all its taken. */
    void begin(int p) {
        finishRunning();
        running = p;
        segmentNext = startOf[p];
        segmentEnd = startOf[p] + countOf[p];
    }

    /** Whether the running process has an event of the window left. */
    boolean hasNext() {
        return segmentNext < segmentEnd || localNext < localSize;
    }

    /**
     * Takes the running process's next event ({@link #hasNext}): the earlier of what came from the
     * queue and what it scheduled itself, the queue's first at a tie (it reached the process first).
     */
    long take() {
        if (localNext < localSize && (segmentNext == segmentEnd || local[2 * localNext] < sorted[2 * segmentNext])) {
            takenTime = local[2 * localNext];
            return local[2 * localNext++ + 1];
        }
        takenTime = sorted[2 * segmentNext];
        return sorted[2 * segmentNext++ + 1];
    }

    /** The time of the event {@link #take} returned last. */
    long takenTime() {
        return takenTime;
    }

    /** The running process scheduled event {@code ev} for itself at {@code at}, within the window: after its events at or before then. */
    void addLocal(long at, long ev) {
        int n = localSize;
        if (2 * n == local.length) {
            local = Arrays.copyOf(local, 4 * n);
        }
        int i = n;
        while (i > localNext && local[2 * i - 2] > at) {
            local[2 * i] = local[2 * i - 2];
            local[2 * i + 1] = local[2 * i - 1];
            i--;
        }
        local[2 * i] = at;
        local[2 * i + 1] = ev;
        localSize = n + 1;
        lastLocal = i;
    }

    /**
     * Replaces the event the running process {@link #addLocal}ed last with {@code replacement}, if
     * that was {@code expected} and is not yet {@link #take}n: the windowed loop's {@link
     * EventQueue#amendLast}, for two messages sent at once on a link without delay (a credit and
     * the feedback that rides with it) to be one event, as the global loop has them. The caller
     * knows nothing was scheduled since (elsewhere). False, and nothing changed, otherwise.
     */
    boolean amendLast(long expected, long replacement) {
        if (lastLocal < localNext || local[2 * lastLocal + 1] != expected) {
            return false;
        }
        local[2 * lastLocal + 1] = replacement;
        return true;
    }

    private void finishRunning() {
        if (running < 0) {
            return;
        }
        assert !hasNext();
        int n = countOf[running] + localSize;
        batches++;
        batchedEvents += n;
        localEvents += localSize;
        histogram[Math.min(BINS - 1, n <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(n - 1L))]++;
        countOf[running] = 0;
        localNext = 0;
        localSize = 0;
        lastLocal = -1;
        running = -1;
    }

    /** Ends the window: every active process ran all its events. */
    void endWindow() {
        finishRunning();
        for (int i = 0; i < activeCount; i++) {
            countOf[active[i]] = 0; // a process that was not begun (none, as the loop runs them all)
        }
        windows++;
        activeCount = 0;
        collected = 0;
    }

    /** What the windows so far held. */
    Stats stats() {
        return new Stats(count, lookaheadNs, windows, batches, batchedEvents, localEvents, histogram.clone());
    }

    /**
     * What a windowed run's windows held: {@code processes} and the {@code lookaheadNs}; {@code
     * windows} run; {@code batches}, a process's events of one window (a process with none in a
     * window is no batch); {@code events} in them, {@code localEvents} of them scheduled by their
     * process within its window; {@code histogram}, batches by their events: 1, 2, 3-4, 5-8, ...,
     * the last bin all above.
     */
    record Stats(int processes, long lookaheadNs, long windows, long batches, long events, long localEvents, long[] histogram) {
        /** A line for the run's diagnostics. */
        String describe() {
            StringBuilder h = new StringBuilder();
            for (int b = 0; b < histogram.length; b++) {
                long lo = b == 0 ? 1 : (1L << (b - 1)) + 1;
                long hi = 1L << b;
                h.append(b == 0 ? "" : ", ").append(b == histogram.length - 1 ? lo + "+" : lo == hi ? String.valueOf(lo) : lo + "-" + hi)
                        .append(": ").append(String.format("%.1f%%", batches == 0 ? 0.0 : 100.0 * histogram[b] / batches));
            }
            return String.format("windowed scheduler: %d logical processes, lookahead %d ns; %d windows, %.1f processes with events per "
                            + "window, %.2f events per process per window (%.1f%% scheduled within their window); batches by events: %s",
                    processes, lookaheadNs, windows, windows == 0 ? 0.0 : (double) batches / windows,
                    batches == 0 ? 0.0 : (double) events / batches, events == 0 ? 0.0 : 100.0 * localEvents / events, h);
        }
    }
}
