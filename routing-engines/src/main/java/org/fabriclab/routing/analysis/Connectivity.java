package org.fabriclab.routing.analysis;

import java.util.Arrays;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;

/** Which host pairs a fabric can connect at all: no routing can reach across a partition. */
public final class Connectivity {
    private Connectivity() {
    }

    /** Ordered pairs of distinct endpoints whose switches lie in different connected components. */
    public static long disconnectedPairs(Fabric f) {
        SwitchGraph g = new SwitchGraph(f);
        int n = g.switchCount();
        int[] component = new int[n];
        Arrays.fill(component, -1);
        int[] dist = new int[n];
        int[] queue = new int[n];
        int components = 0;
        for (int s = 0; s < n; s++) {
            if (component[s] < 0) {
                g.bfs(s, dist, queue);
                for (int x = 0; x < n; x++) {
                    if (dist[x] != SwitchGraph.UNREACHABLE) {
                        component[x] = components;
                    }
                }
                components++;
            }
        }
        long[] hosts = new long[Math.max(components, 1)];
        long attached = 0;
        for (int e = 0; e < f.endpointCount(); e++) {
            int sw = f.endpointSwitch(e);
            if (sw != Fabric.NONE) {
                hosts[component[f.switchIndex(sw)]]++;
                attached++;
            }
        }
        long all = (long) f.endpointCount() * (f.endpointCount() - 1);
        long connected = 0;
        for (long h : hosts) {
            connected += h * (h - 1);
        }
        assert attached <= f.endpointCount();
        return all - connected;
    }
}
