package org.fabriclab.routing.torus;

import java.util.Arrays;

/**
 * Section 3.2 of the Angara paper: the turns against the direction order that cannot close a cycle
 * in the channel dependency graph. The CDG's vertices are the channels {@code (u, D)}; its edges
 * are first the turns the direction order allows ({@code D_i <= D_j}, straight on included: a
 * ring's cycle is bubble flow control's business). Each channel's used-direction set {@code B}
 * holds the directions of every channel reachable from it. Then, channel by channel, a turn
 * {@code (u, D_i) -> (v, D_j)} with {@code D_j < D_i} is added when {@code D_i} is not in {@code
 * B(v, D_j)} (Theorem 2: no path leads back), and every channel that reaches {@code (u, D_i)}
 * takes {@code B(v, D_j)} into its set; passes repeat until none adds a turn.
 *
 * <p>Only the turns the routing graph can use are considered: after a first positive step to a
 * lower positive direction, and into a last negative step from a higher negative direction.
 */
final class DeadlockFreeTurns {
    private DeadlockFreeTurns() {
    }

    /** Per channel, the directions a packet arriving over it may turn to against the order (null where none). */
    static int[][] of(Torus t) {
        int dirs = t.directions();
        int n = t.dimensions();
        int channels = t.channelIds();
        int[] used = new int[channels];
        for (int c = 0; c < channels; c++) {
            if (t.next(c) >= 0) {
                used[c] = 1 << (c % dirs);
            }
        }
        // added turns: per channel a bit per direction
        int[] added = new int[channels];
        // the base graph's sets, to a fixed point (rings need as many rounds as they are long)
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int c = channels - 1; c >= 0; c--) {
                if (t.next(c) < 0) {
                    continue;
                }
                int b = used[c];
                int v = t.next(c);
                for (int d = c % dirs; d < dirs; d++) {
                    int w = t.channel(v, d);
                    if (t.next(w) >= 0) {
                        b |= used[w];
                    }
                }
                if (b != used[c]) {
                    used[c] = b;
                    changed = true;
                }
            }
        }
        int[] queue = new int[channels];
        boolean[] seen = new boolean[channels];
        boolean more = true;
        while (more) {
            more = false;
            for (int c = 0; c < channels; c++) {
                if (t.next(c) < 0) {
                    continue;
                }
                int di = c % dirs;
                int v = t.next(c);
                for (int dj = 0; dj < di; dj++) {
                    boolean usable = di < n || dj >= n; // first positive step turning lower, or into a last negative step
                    int w = t.channel(v, dj);
                    if (!usable || t.next(w) < 0 || (added[c] & (1 << dj)) != 0 || (used[w] & (1 << di)) != 0) {
                        continue;
                    }
                    added[c] |= 1 << dj;
                    more = true;
                    // everything that reaches c now reaches what w reaches
                    spreadBackwards(t, c, used[w], used, added, queue, seen);
                }
            }
        }
        int[][] out = new int[channels][];
        for (int c = 0; c < channels; c++) {
            if (added[c] != 0) {
                out[c] = new int[Integer.bitCount(added[c])];
                int k = 0;
                for (int d = 0; d < dirs; d++) {
                    if ((added[c] & (1 << d)) != 0) {
                        out[c][k++] = d;
                    }
                }
            }
        }
        return out;
    }

    /** Adds {@code bits} to the set of c and of every channel with a path to c (breadth-first over the dependencies reversed). */
    private static void spreadBackwards(Torus t, int c, int bits, int[] used, int[] added, int[] queue, boolean[] seen) {
        int dirs = t.directions();
        Arrays.fill(seen, false);
        int head = 0;
        int tail = 0;
        queue[tail++] = c;
        seen[c] = true;
        while (head < tail) {
            int x = queue[head++];
            used[x] |= bits;
            // predecessors of x = (node, dir): channels into node whose turn to dir is allowed
            int node = x / dirs;
            int dx = x % dirs;
            for (int d = 0; d < dirs; d++) {
                int p = t.arrivalChannel(node, d);
                if (p < 0 || seen[p]) {
                    continue;
                }
                if (d <= dx || (added[p] & (1 << dx)) != 0) {
                    seen[p] = true;
                    queue[tail++] = p;
                }
            }
        }
    }
}
