package org.fabriclab.routing.topology;

import java.util.List;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;

/**
 * Dragonfly (Kim et al., 2008) and Dragonfly+ (Shpiner et al., 2017).
 *
 * <p>Dragonfly: {@code g} groups of {@code a} switches, all-to-all inside a group; each switch has
 * {@code p} hosts and {@code h} global links; {@code g} defaults to {@code a*h+1}, one global link
 * between every pair of groups ({@code trunk=N}: N links between every pair, {@code g} then
 * defaults to {@code a*h/N+1}). Global links use the "absolute" arrangement: group i's global
 * channel c (0..a*h-1, switch c/h, its global port c%h) goes to group c if c &lt; i, else c+1.
 * Switch {@code G<g>_S<s>} has ports 1..a-1 inside the group, a..a+h-1 global, then hosts
 * {@code G<g>_S<s>_H<k>} (the OpenSM peer generator's layout).
 *
 * <p>Dragonfly+: each group is a two-level tree of {@code leaves} leaf switches (with {@code p}
 * hosts each) fully cabled to {@code spines} spine switches; each spine has {@code h} global links,
 * arranged as above over the group's {@code spines*h} global channels; {@code g} defaults to
 * {@code spines*h+1}. Leaves {@code G<g>_L<i>} have ports 1..p hosts then spines; spines
 * {@code G<g>_S<j>} have ports 1..leaves down then h global.
 */
final class Dragonflies {
    private Dragonflies() {
    }

    /** The dragonfly spec's parameters, for the messages that list them. */
    static final List<String> DRAGONFLY_PARAMS = List.of("p", "a", "h", "g", "trunk", "arrangement", "local-latency", "global-latency",
            "host-latency");

    static Fabric dragonfly(TopologySpec spec) {
        return dragonfly(spec, spec.text());
    }

    /** A dragonfly by {@code spec}, named {@code kind} (a paper's test bed keeps its own name). */
    static Fabric dragonfly(TopologySpec spec, String kind) {
        int p = spec.intParam("p");
        int a = spec.intParam("a");
        int h = spec.intParam("h");
        int trunk = spec.intParam("trunk", 1);
        // checked before any a * h: a router's ports bound a and h, so the products below cannot wrap
        TopologySpec.require(p >= 0 && a >= 1 && h >= 1, "dragonfly: need p >= 0, a >= 1, h >= 1");
        long routerPorts = (long) (a - 1) + h + p;
        TopologySpec.require(routerPorts <= FabricBuilder.MAX_PORTS, "dragonfly switches would need " + routerPorts + " ports, more than "
                + FabricBuilder.MAX_PORTS);
        TopologySpec.require(trunk >= 1 && trunk <= a * h, "dragonfly: trunk=" + trunk + " must be 1.." + (a * h)
                + " (global links between each pair of groups)");
        int g = spec.intParam("g", a * h / trunk + 1);
        String arrangement = spec.stringParam("arrangement", "absolute");
        long local = spec.durationParamNs("local-latency", -1);
        long global = spec.durationParamNs("global-latency", -1);
        long host = spec.durationParamNs("host-latency", -1);
        spec.checkAllUsed(DRAGONFLY_PARAMS);
        TopologySpec.require(g >= 2 && (long) (g - 1) * trunk <= a * h, trunk == 1
                ? "dragonfly: need 2 <= g <= a*h+1 = " + (a * h + 1)
                : "dragonfly: need 2 <= g and (g-1)*trunk <= a*h = " + (a * h) + " (each group's global ports carry trunk links to every other group)");
        TopologySpec.require(arrangement.equals("absolute") || arrangement.equals("relative"),
                "dragonfly: arrangement=" + arrangement + " is not one of absolute, relative");
        TopologySpec.require(!arrangement.equals("relative") || g == a * h + 1 && trunk == 1,
                "dragonfly: the relative arrangement needs g = a*h+1 = " + (a * h + 1) + " (one global link between every pair of groups)");
        TopologySpec.require((long) g * a <= 20_000, "dragonfly with " + (long) g * a + " switches is larger than the 20,000 this tool builds");
        FabricBuilder b = new FabricBuilder(kind);
        int ports = (int) routerPorts;
        int[][] sw = new int[g][a];
        for (int gi = 0; gi < g; gi++) {
            for (int si = 0; si < a; si++) {
                sw[gi][si] = b.addSwitch("G" + gi + "_S" + si, ports);
                b.group(sw[gi][si], gi);
            }
        }
        for (int gi = 0; gi < g; gi++) {
            for (int si = 0; si < a; si++) {
                for (int k = 0; k < p; k++) {
                    int ca = b.addCa("G" + gi + "_S" + si + "_H" + k, 1);
                    b.group(ca, gi);
                    b.link(sw[gi][si], a + h + k, ca, 1);
                    delay(b, sw[gi][si], a + h + k, host);
                }
            }
        }
        for (int gi = 0; gi < g; gi++) {
            for (int si = 0; si < a; si++) {
                for (int sj = si + 1; sj < a; sj++) {
                    // switch si's local port to sj is sj (ports 1..a-1 skip itself); sj's to si is si+1
                    b.link(sw[gi][si], sj, sw[gi][sj], si + 1);
                    delay(b, sw[gi][si], sj, local);
                }
            }
        }
        if (arrangement.equals("relative")) {
            relativeGlobalLinks(b, sw, g, h, a, global);
        } else {
            globalLinks(b, sw, g, h, trunk, a, global);
        }
        return b.build();
    }

    private static void delay(FabricBuilder b, int node, int port, long ns) {
        if (ns >= 0) {
            b.linkDelay(node, port, ns);
        }
    }

    /**
     * Absolute arrangement (SST/Merlin's and BookSim2's): in group G, global channel n = i*h + j
     * (router i, its global port j) reaches group n if n &lt; G, else n + 1; with {@code trunk} links
     * between each pair of groups (Cray Cascade's bundles), copy k of that link is channel
     * n + k*(g-1), so the copies land on other routers of the group and a group keeps its way to
     * every other when one global link fails. {@code firstGlobalPort} is the port number of global
     * link 0 on a switch; {@code delayNs} the global links' delay, or -1.
     */
    private static void globalLinks(FabricBuilder b, int[][] routers, int g, int h, int trunk, int firstGlobalPort, long delayNs) {
        for (int k = 0; k < trunk; k++) {
            for (int gi = 0; gi < g; gi++) {
                for (int t = gi + 1; t < g; t++) {
                    int ci = k * (g - 1) + t - 1; // channel of gi towards t (t > gi)
                    int ct = k * (g - 1) + gi;    // channel of t towards gi (gi < t)
                    b.link(routers[gi][ci / h], firstGlobalPort + ci % h, routers[t][ct / h], firstGlobalPort + ct % h);
                    delay(b, routers[gi][ci / h], firstGlobalPort + ci % h, delayNs);
                }
            }
        }
    }

    /**
     * Relative arrangement: in group G, global channel n reaches group (G + n + 1) mod g, so the
     * channel of G towards T is (T - G - 1) mod g, and T's towards G is (G - T - 1) mod g. Needs one
     * global link between every pair of groups (g = a*h + 1).
     */
    private static void relativeGlobalLinks(FabricBuilder b, int[][] routers, int g, int h, int firstGlobalPort, long delayNs) {
        for (int gi = 0; gi < g; gi++) {
            for (int t = gi + 1; t < g; t++) {
                int ci = Math.floorMod(t - gi - 1, g);
                int ct = Math.floorMod(gi - t - 1, g);
                b.link(routers[gi][ci / h], firstGlobalPort + ci % h, routers[t][ct / h], firstGlobalPort + ct % h);
                delay(b, routers[gi][ci / h], firstGlobalPort + ci % h, delayNs);
            }
        }
    }

    static Fabric dragonflyPlus(TopologySpec spec) {
        int p = spec.intParam("p");
        int leaves = spec.intParam("leaves");
        int spines = spec.intParam("spines");
        int h = spec.intParam("h");
        int g = spec.intParam("g", spines * h + 1);
        spec.checkAllUsed(List.of("p", "leaves", "spines", "h", "g"));
        TopologySpec.require(p >= 0 && leaves >= 1 && spines >= 1 && h >= 1,
                "dragonfly-plus: need p >= 0, leaves >= 1, spines >= 1, h >= 1");
        TopologySpec.require(g >= 2 && g <= spines * h + 1, "dragonfly-plus: need 2 <= g <= spines*h+1 = " + (spines * h + 1));
        TopologySpec.require((long) g * (leaves + spines) <= 20_000, "dragonfly-plus is larger than this tool builds");
        TopologySpec.require(p + spines <= FabricBuilder.MAX_PORTS && leaves + h <= FabricBuilder.MAX_PORTS,
                "dragonfly-plus switches would need more than " + FabricBuilder.MAX_PORTS + " ports");
        FabricBuilder b = new FabricBuilder(spec.text());
        int[][] leaf = new int[g][leaves];
        int[][] spine = new int[g][spines];
        for (int gi = 0; gi < g; gi++) {
            for (int i = 0; i < leaves; i++) {
                leaf[gi][i] = b.addSwitch("G" + gi + "_L" + i, p + spines);
                b.group(leaf[gi][i], gi).level(leaf[gi][i], 1);
            }
            for (int j = 0; j < spines; j++) {
                spine[gi][j] = b.addSwitch("G" + gi + "_S" + j, leaves + h);
                b.group(spine[gi][j], gi).level(spine[gi][j], 2);
            }
        }
        for (int gi = 0; gi < g; gi++) {
            for (int i = 0; i < leaves; i++) {
                for (int k = 0; k < p; k++) {
                    int ca = b.addCa("G" + gi + "_L" + i + "_H" + k, 1);
                    b.group(ca, gi);
                    b.link(leaf[gi][i], 1 + k, ca, 1);
                }
                for (int j = 0; j < spines; j++) {
                    b.link(leaf[gi][i], p + 1 + j, spine[gi][j], 1 + i);
                }
            }
        }
        globalLinks(b, spine, g, h, 1, leaves + 1, -1);
        return b.build();
    }
}
