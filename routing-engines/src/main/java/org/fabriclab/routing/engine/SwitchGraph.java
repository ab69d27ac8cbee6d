package org.fabriclab.routing.engine;

import java.util.Arrays;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The switch-to-switch part of a fabric as a CSR graph over switch numbers: for switch {@code s},
 * entries {@code offset(s)..offset(s+1)-1} hold the global port (the directed channel) and the
 * neighbouring switch of each inter-switch link, in port order. Parallel links are separate entries.
 * Built once per routing run; read-only afterwards.
 */
public final class SwitchGraph {
    /** Distance of a switch that cannot reach the destination. */
    public static final int UNREACHABLE = Integer.MAX_VALUE;

    private final Fabric fabric;
    private final int[] offsets;
    private final int[] channels;
    private final int[] neighbours;
    private final int[] sources;

    public SwitchGraph(Fabric fabric) {
        this.fabric = fabric;
        int n = fabric.switchCount();
        offsets = new int[n + 1];
        for (int s = 0; s < n; s++) {
            int node = fabric.switchNode(s);
            int count = 0;
            for (int p = 1; p <= fabric.portCount(node); p++) {
                int peer = fabric.peerNode(fabric.globalPort(node, p));
                if (peer != Fabric.NONE && fabric.isSwitch(peer)) {
                    count++;
                }
            }
            offsets[s + 1] = offsets[s] + count;
        }
        channels = new int[offsets[n]];
        neighbours = new int[offsets[n]];
        sources = new int[offsets[n]];
        for (int s = 0; s < n; s++) {
            int node = fabric.switchNode(s);
            int i = offsets[s];
            for (int p = 1; p <= fabric.portCount(node); p++) {
                int g = fabric.globalPort(node, p);
                int peer = fabric.peerNode(g);
                if (peer != Fabric.NONE && fabric.isSwitch(peer)) {
                    channels[i] = g;
                    neighbours[i] = fabric.switchIndex(peer);
                    sources[i] = s;
                    i++;
                }
            }
        }
    }

    public Fabric fabric() {
        return fabric;
    }

    public int switchCount() {
        return offsets.length - 1;
    }

    /** Number of directed inter-switch channels. */
    public int channelCount() {
        return channels.length;
    }

    public int offset(int s) {
        return offsets[s];
    }

    /** The global port (channel id) of adjacency entry {@code i}. */
    public int channel(int i) {
        return channels[i];
    }

    /** The neighbouring switch of adjacency entry {@code i}. */
    public int neighbour(int i) {
        return neighbours[i];
    }

    /** The switch adjacency entry {@code i} leaves from. */
    public int source(int i) {
        return sources[i];
    }

    /** Port number of adjacency entry {@code i} on switch {@code s}. */
    public int portNumber(int s, int i) {
        return channels[i] - fabric.portBase(fabric.switchNode(s)) + 1;
    }

    /**
     * Hop distances from every switch to {@code target} by breadth-first search (links are
     * bidirectional, so distance to equals distance from).
     *
     * @param dist  filled with the distance, {@link #UNREACHABLE} where there is no path
     * @param queue scratch of at least {@link #switchCount()} entries
     */
    public void bfs(int target, int[] dist, int[] queue) {
        Arrays.fill(dist, UNREACHABLE);
        dist[target] = 0;
        queue[0] = target;
        bfs(dist, queue, 1);
    }

    /** Hop distances from every switch to the nearest of {@code targets}. */
    public void bfs(int[] targets, int[] dist, int[] queue) {
        Arrays.fill(dist, UNREACHABLE);
        int tail = 0;
        for (int t : targets) {
            if (dist[t] != 0) {
                dist[t] = 0;
                queue[tail++] = t;
            }
        }
        bfs(dist, queue, tail);
    }

    /** Hop distances from every switch to the nearest switch with a CA cabled to it (0 for those). */
    public void bfsFromHosts(int[] dist, int[] queue) {
        int[] withHosts = new int[fabric.endpointCount()];
        int count = 0;
        for (int e = 0; e < fabric.endpointCount(); e++) {
            int sw = fabric.endpointSwitch(e);
            if (sw != Fabric.NONE) {
                withHosts[count++] = fabric.switchIndex(sw);
            }
        }
        bfs(Arrays.copyOf(withHosts, count), dist, queue);
    }

    private void bfs(int[] dist, int[] queue, int tail) {
        for (int head = 0; head < tail; head++) {
            int s = queue[head];
            int d = dist[s] + 1;
            for (int i = offsets[s], end = offsets[s + 1]; i < end; i++) {
                int t = neighbours[i];
                if (dist[t] == UNREACHABLE) {
                    dist[t] = d;
                    queue[tail++] = t;
                }
            }
        }
    }
}
