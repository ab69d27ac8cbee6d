package org.fabriclab.manager.web;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricLayout;

/**
 * What the fabric view draws of one fabric: which nodes (every switch; the hosts only if asked,
 * else each switch carries its host count), where ({@link FabricLayout}'s tree level, Dragonfly
 * group or torus coordinates, turned into positions in the unit square), and the links between
 * drawn nodes, each with both directions. Immutable, computed once per discovered fabric; the
 * live load is laid over it by {@link #load}, in the same link order.
 *
 * <p>Layouts: {@code torus} when every switch has coordinates (a 2-D grid; a 3-D torus as its
 * z-planes side by side, a 4-D one's w-planes stacked), {@code groups} when every switch has a
 * Dragonfly group (switches on a circle, group by group), {@code tree} when the switches span two
 * levels or more (rows by level, the top level at the top), else {@code ring} (a circle).
 */
final class FabricPicture {
    /** Row of switches no host reaches (no level). */
    private static final int UNLEVELLED = Integer.MAX_VALUE;

    final Fabric fabric;
    final FabricLayout layout;
    final String kind;
    final boolean hostsShown;
    /** Drawn node i is fabric node {@code nodes[i]}; switches first, in fabric order, then hosts. */
    final int[] nodes;
    /** Drawn index of each fabric node, or -1. */
    final int[] drawn;
    final double[] x;
    final double[] y;
    /** Per link l: drawn node and port of end A at {@code 4l, 4l+1}, of end B at {@code 4l+2, 4l+3}. */
    final int[] links;
    /** Per link: its kind, an index into {@link #kinds}. */
    final int[] linkKind;
    final List<String> kinds;
    /** Per drawn switch: the hosts cabled to it. */
    final int[] hosts;

    private FabricPicture(Fabric fabric, boolean hostsShown) {
        this.fabric = fabric;
        this.layout = FabricLayout.of(fabric);
        this.hostsShown = hostsShown;
        int n = fabric.nodeCount();
        drawn = new int[n];
        Arrays.fill(drawn, -1);
        int count = 0;
        int[] order = new int[n];
        for (int pass = 0; pass < 2; pass++) {
            for (int v = 0; v < n; v++) {
                if (fabric.isSwitch(v) == (pass == 0) && (pass == 0 || hostsShown)) {
                    drawn[v] = count;
                    order[count++] = v;
                }
            }
        }
        nodes = Arrays.copyOf(order, count);
        hosts = new int[fabric.switchCount()];
        Map<String, Integer> kindIndex = new LinkedHashMap<>();
        List<Integer> ends = new ArrayList<>();
        List<Integer> kindOf = new ArrayList<>();
        for (int v = 0; v < n; v++) {
            for (int p = 1; p <= fabric.portCount(v); p++) {
                int g = fabric.globalPort(v, p);
                int peer = fabric.peerNode(g);
                if (peer == Fabric.NONE) {
                    continue;
                }
                int pp = fabric.peerPort(g);
                if (fabric.isSwitch(v) && !fabric.isSwitch(peer)) {
                    hosts[drawn[v]]++;
                }
                boolean once = v < peer || v == peer && p < pp;
                if (once && drawn[v] >= 0 && drawn[peer] >= 0) {
                    ends.addAll(List.of(drawn[v], p, drawn[peer], pp));
                    kindOf.add(kindIndex.computeIfAbsent(layout.linkKind(v, p), k -> kindIndex.size()));
                }
            }
        }
        links = ends.stream().mapToInt(Integer::intValue).toArray();
        linkKind = kindOf.stream().mapToInt(Integer::intValue).toArray();
        kinds = List.copyOf(kindIndex.keySet());
        x = new double[count];
        y = new double[count];
        kind = place();
    }

    /** The picture of {@code fabric}, with its hosts drawn or collapsed into their switches. */
    static FabricPicture of(Fabric fabric, boolean hostsShown) {
        return new FabricPicture(fabric, hostsShown);
    }

    int linkCount() {
        return linkKind.length;
    }

    int switchCount() {
        return fabric.switchCount();
    }

    /** Sets {@link #x} and {@link #y}; returns the layout's name. */
    private String place() {
        int switches = fabric.switchCount();
        boolean coordinates = switches > 0;
        boolean groups = switches > 0;
        int top = 0;
        int bottom = Integer.MAX_VALUE;
        for (int i = 0; i < switches; i++) {
            coordinates &= layout.coordinates(nodes[i]) != null;
            groups &= layout.group(nodes[i]) != Fabric.NONE;
            int level = layout.level(nodes[i]);
            if (level != Fabric.NONE) {
                top = Math.max(top, level);
                bottom = Math.min(bottom, level);
            }
        }
        if (coordinates) {
            placeHostsAround(switches, 0.3 * placeTorus(switches));
            return "torus";
        }
        if (groups) {
            placeCircle(switches, true);
            placeHostsAround(switches, 0.04);
            return "groups";
        }
        if (top > bottom) {
            placeRows(top);
            return "tree";
        }
        placeCircle(switches, false);
        placeHostsAround(switches, 0.04);
        return "ring";
    }

    /** Places the switches by their coordinates; returns the side of a cell. */
    private double placeTorus(int switches) {
        int[] size = new int[4];
        int[][] c = new int[switches][];
        for (int i = 0; i < switches; i++) {
            c[i] = Arrays.copyOf(layout.coordinates(nodes[i]), 4);
            for (int d = 0; d < 4; d++) {
                size[d] = Math.max(size[d], c[i][d] + 1);
            }
        }
        // planes of the third dimension side by side, of the fourth stacked, one empty cell between planes
        double columns = (size[0] + 1.0) * size[2] - 1;
        double rows = (size[1] + 1.0) * size[3] - 1;
        for (int i = 0; i < switches; i++) {
            x[i] = (c[i][0] + c[i][2] * (size[0] + 1) + 0.5) / columns;
            y[i] = (c[i][1] + c[i][3] * (size[1] + 1) + 0.5) / rows;
        }
        return 1 / Math.max(columns, rows);
    }

    /** Switches on a circle in fabric order; by group, with a gap between groups, if {@code byGroup}. */
    private void placeCircle(int switches, boolean byGroup) {
        Integer[] order = new Integer[switches];
        for (int i = 0; i < switches; i++) {
            order[i] = i;
        }
        int gaps = 0;
        if (byGroup) {
            Arrays.sort(order, (a, b) -> layout.group(nodes[a]) != layout.group(nodes[b])
                    ? Integer.compare(layout.group(nodes[a]), layout.group(nodes[b])) : Integer.compare(a, b));
            gaps = (int) Arrays.stream(nodes, 0, switches).map(layout::group).distinct().count();
        }
        double slots = switches + gaps;
        int gap = 0;
        for (int k = 0; k < switches; k++) {
            int i = order[k];
            if (byGroup && (k == 0 || layout.group(nodes[i]) != layout.group(nodes[order[k - 1]]))) {
                gap++;
            }
            double angle = 2 * Math.PI * (k + gap) / Math.max(1, slots) - Math.PI / 2;
            x[i] = 0.5 + 0.42 * Math.cos(angle);
            y[i] = 0.5 + 0.42 * Math.sin(angle);
        }
    }

    /** Rows by level, the highest at the top; drawn hosts in the bottom row, in the order of their switches. */
    private void placeRows(int top) {
        Map<Integer, List<Integer>> rows = new LinkedHashMap<>();
        for (int i = 0; i < fabric.switchCount(); i++) {
            int level = layout.level(nodes[i]);
            rows.computeIfAbsent(level == Fabric.NONE ? UNLEVELLED : level, k -> new ArrayList<>()).add(i);
        }
        int rowCount = top + (rows.containsKey(UNLEVELLED) ? 1 : 0) + (hostsShown ? 1 : 0);
        for (var row : rows.entrySet()) {
            int r = row.getKey() == UNLEVELLED ? top : top - row.getKey(); // unlevelled ones in a row under the leaves
            spread(row.getValue(), (r + 0.5) / rowCount);
        }
        if (hostsShown) {
            List<Integer> bottom = new ArrayList<>();
            for (int i = fabric.switchCount(); i < nodes.length; i++) {
                bottom.add(i);
            }
            bottom.sort((a, b) -> Double.compare(x[switchOf(a)], x[switchOf(b)]) != 0
                    ? Double.compare(x[switchOf(a)], x[switchOf(b)]) : Integer.compare(a, b));
            spread(bottom, (rowCount - 0.5) / rowCount);
        }
    }

    private void spread(List<Integer> row, double rowY) {
        for (int k = 0; k < row.size(); k++) {
            x[row.get(k)] = (k + 0.5) / row.size();
            y[row.get(k)] = rowY;
        }
    }

    /** Drawn hosts around their switch at {@code radius}, evenly. */
    private void placeHostsAround(int switches, double radius) {
        if (!hostsShown) {
            return;
        }
        int[] seen = new int[switches];
        for (int i = switches; i < nodes.length; i++) {
            int s = switchOf(i);
            if (s < 0) {
                x[i] = 0.5;
                y[i] = 0.5;
                continue;
            }
            double angle = 2 * Math.PI * seen[s]++ / Math.max(1, hosts[s]);
            x[i] = x[s] + radius * Math.cos(angle);
            y[i] = y[s] + radius * Math.sin(angle);
        }
    }

    /** The drawn switch a drawn host is cabled to (its first linked port), or -1. */
    private int switchOf(int host) {
        int v = nodes[host];
        for (int p = 1; p <= fabric.portCount(v); p++) {
            int peer = fabric.peerNode(fabric.globalPort(v, p));
            if (peer != Fabric.NONE && fabric.isSwitch(peer)) {
                return drawn[peer];
            }
        }
        return -1;
    }
}
