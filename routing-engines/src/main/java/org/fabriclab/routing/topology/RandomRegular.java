package org.fabriclab.routing.topology;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;

/**
 * A random regular graph of switches (Jellyfish, Singla et al. 2012): {@code switches} switches
 * of {@code degree} inter-switch ports each, cabled by the pairing model with restarts until the
 * graph is simple, then {@code hosts} hosts per switch. Deterministic for a {@code seed}.
 * Switches {@code R<i>}, hosts {@code R<i>_H<k>}.
 */
final class RandomRegular {
    private RandomRegular() {
    }

    static Fabric build(TopologySpec spec) {
        int n = spec.intParam("switches");
        int degree = spec.intParam("degree");
        int hosts = spec.intParam("hosts", 1);
        long seed = spec.intParam("seed", 1);
        spec.checkAllUsed(List.of("switches", "degree", "hosts", "seed"));
        TopologySpec.require(n >= 2 && degree >= 1 && degree < n, "random: need switches >= 2 and 1 <= degree < switches");
        TopologySpec.require(hosts >= 0, "random: hosts must be >= 0");
        TopologySpec.require((long) n * degree % 2 == 0, "random: switches * degree must be even");
        TopologySpec.require(n <= 20_000 && degree + hosts <= FabricBuilder.MAX_PORTS, "random: fabric too large");
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int attempt = 0; attempt < 1000; attempt++) {
            int[] pairs = tryPairing(n, degree, rnd);
            if (pairs != null) {
                FabricBuilder b = new FabricBuilder(spec.text());
                int[] ids = new int[n];
                for (int i = 0; i < n; i++) {
                    ids[i] = b.addSwitch("R" + i, degree + hosts);
                }
                int[] nextPort = new int[n];
                for (int i = 0; i < pairs.length; i += 2) {
                    int u = pairs[i];
                    int v = pairs[i + 1];
                    b.link(ids[u], ++nextPort[u], ids[v], ++nextPort[v]);
                }
                for (int i = 0; i < n; i++) {
                    for (int k = 0; k < hosts; k++) {
                        b.link(ids[i], degree + 1 + k, b.addCa("R" + i + "_H" + k, 1), 1);
                    }
                }
                return b.build();
            }
        }
        throw new IllegalArgumentException("random: no simple " + degree + "-regular graph on " + n
                + " switches found in 1000 attempts; try another seed or degree");
    }

    /**
     * The pairing model, then repairs: a self-loop or a repeated edge is swapped with a random other
     * edge ({u,v},{x,y} -> {u,x},{v,y}) when that creates neither. Null if repairs did not converge.
     */
    private static int[] tryPairing(int n, int degree, SplittableRandom rnd) {
        int[] e = new int[n * degree];
        for (int i = 0; i < e.length; i++) {
            e[i] = i / degree;
        }
        for (int i = e.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = e[i];
            e[i] = e[j];
            e[j] = t;
        }
        Map<Long, Integer> count = new HashMap<>();
        for (int i = 0; i < e.length; i += 2) {
            count.merge(key(e[i], e[i + 1]), 1, Integer::sum);
        }
        int edges = e.length / 2;
        for (int budget = 100 * edges + 1000; budget > 0; budget--) {
            int bad = -1;
            for (int i = 0; i < edges && bad < 0; i++) {
                if (e[2 * i] == e[2 * i + 1] || count.get(key(e[2 * i], e[2 * i + 1])) > 1) {
                    bad = i;
                }
            }
            if (bad < 0) {
                return e;
            }
            int other = rnd.nextInt(edges);
            int u = e[2 * bad];
            int v = e[2 * bad + 1];
            int x = e[2 * other];
            int y = e[2 * other + 1];
            if (other == bad || u == x || v == y || count.containsKey(key(u, x)) || count.containsKey(key(v, y))) {
                continue;
            }
            count.merge(key(u, v), -1, Integer::sum);
            count.remove(key(u, v), 0);
            count.merge(key(x, y), -1, Integer::sum);
            count.remove(key(x, y), 0);
            e[2 * bad + 1] = x;
            e[2 * other] = v;
            count.merge(key(u, x), 1, Integer::sum);
            count.merge(key(v, y), 1, Integer::sum);
        }
        return null;
    }

    private static long key(int a, int b) {
        return a < b ? ((long) a << 32) | b : ((long) b << 32) | a;
    }
}
