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
 * <p>Holds each process's events of the current window in time order ({@link #add}, ties in the
 * order added) and counts what the windows held ({@link #stats}). Nothing is allocated per event
 * once the lists have grown. Confined to the simulation's thread.
 */
final class LogicalProcesses {
    /** The widest window, whatever the lookahead (a fabric of one process has none): keeps the lists short. */
    static final long MAX_WINDOW_NS = 1024;
    /** Bins of the events-per-process-per-window histogram: 1, 2, 3-4, 5-8, ... 2^(BINS-2)+1 and above. */
    static final int BINS = 9;
    private static final int FIRST_LIST = 16;

    private final int[] processOfNode;
    private final int[] processOfEndpoint;
    private final int count;
    private final long lookaheadNs;
    private final long[][] times;
    private final long[][] events;
    private final int[] head;
    private final int[] size;
    /** The processes with events in the current window, in the order their first came. */
    private final int[] active;
    private int activeCount;
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
        times = new long[count][FIRST_LIST];
        events = new long[count][FIRST_LIST];
        head = new int[count];
        size = new int[count];
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

    /**
     * Adds event {@code ev} at {@code at} to process {@code p}'s window, after its events at or
     * before {@code at} not yet taken; {@code local}: scheduled by the process itself while its
     * window ran (counted apart).
     */
    void add(int p, long at, long ev, boolean local) {
        int n = size[p];
        if (n == 0) {
            active[activeCount++] = p;
        }
        long[] t = times[p];
        long[] e = events[p];
        if (n == t.length) {
            t = times[p] = Arrays.copyOf(t, n * 2);
            e = events[p] = Arrays.copyOf(e, n * 2);
        }
        int i = n;
        while (i > head[p] && t[i - 1] > at) {
            t[i] = t[i - 1];
            e[i] = e[i - 1];
            i--;
        }
        t[i] = at;
        e[i] = ev;
        size[p] = n + 1;
        if (local) {
            localEvents++;
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

    /** Whether process {@code p} has an event of the window left. */
    boolean hasNext(int p) {
        return head[p] < size[p];
    }

    /** The time of process {@code p}'s next event ({@link #hasNext}). */
    long nextTime(int p) {
        return times[p][head[p]];
    }

    /** Takes process {@code p}'s next event ({@link #hasNext}); its time was {@link #nextTime}. */
    long take(int p) {
        return events[p][head[p]++];
    }

    /** Ends the window: every active process's events were taken. */
    void endWindow() {
        windows++;
        for (int i = 0; i < activeCount; i++) {
            int p = active[i];
            assert head[p] == size[p];
            int n = size[p];
            batches++;
            batchedEvents += n;
            histogram[Math.min(BINS - 1, n <= 1 ? 0 : 65 - Long.numberOfLeadingZeros(n - 1L) - 1)]++;
            head[p] = 0;
            size[p] = 0;
        }
        activeCount = 0;
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
