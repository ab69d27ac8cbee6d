package org.fabriclab.routing.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Adaptive-routing tables of every switch, as the InfiniBand Adaptive Routing Manager computes
 * them beside the static LFT: per switch, AR groups (sets of ports, numbered from 1) and an AR LFT
 * (per LID, the group a packet may choose from; 0 for none, the static port then). Immutable once
 * built.
 */
public final class ArTables {
    private final int[][][] groups;
    private final short[][] groupOfLid;

    private ArTables(int[][][] groups, short[][] groupOfLid) {
        this.groups = groups;
        this.groupOfLid = groupOfLid;
    }

    public static Builder builder(int switches, int lids) {
        return new Builder(switches, lids);
    }

    /** Number of AR groups of switch {@code s}; they are numbered 1..count. */
    public int groupCount(int s) {
        return groups[s].length;
    }

    /** The ports of group {@code g} (1..count) of switch {@code s}, ascending (a copy). */
    public int[] ports(int s, int g) {
        return groups[s][g - 1].clone();
    }

    /** The AR group of {@code lid} at switch {@code s}, 0 for none. */
    public int group(int s, int lid) {
        return lid < groupOfLid[s].length ? groupOfLid[s][lid] : 0;
    }

    /** Entries of switch {@code s}'s AR LFT (one per LID, as long as its LFT). */
    public int size(int s) {
        return groupOfLid[s].length;
    }

    /** Fills the AR tables of one routing run; groups with the same ports on one switch are one group. */
    public static final class Builder {
        private final List<List<int[]>> groups = new ArrayList<>();
        private final List<Map<String, Integer>> byPorts = new ArrayList<>();
        private final short[][] groupOfLid;

        private Builder(int switches, int lids) {
            groupOfLid = new short[switches][lids];
            for (int s = 0; s < switches; s++) {
                groups.add(new ArrayList<>());
                byPorts.add(new HashMap<>());
            }
        }

        /** The number of the group of switch {@code s} with exactly {@code ports} (defined now if new). */
        public int group(int s, int[] ports) {
            int[] sorted = ports.clone();
            Arrays.sort(sorted);
            return byPorts.get(s).computeIfAbsent(Arrays.toString(sorted), k -> {
                groups.get(s).add(sorted);
                if (groups.get(s).size() > Short.MAX_VALUE) {
                    throw new IllegalStateException("switch " + s + " needs more than " + Short.MAX_VALUE + " AR groups");
                }
                return groups.get(s).size();
            });
        }

        public Builder set(int s, int lid, int group) {
            groupOfLid[s][lid] = (short) group;
            return this;
        }

        public ArTables build() {
            int[][][] g = new int[groups.size()][][];
            for (int s = 0; s < g.length; s++) {
                g[s] = groups.get(s).toArray(new int[0][]);
            }
            return new ArTables(g, groupOfLid);
        }
    }

    /**
     * What is wrong with {@code t}'s AR tables, at most {@code limit} problems (none: an empty
     * list): an AR LFT entry naming an undefined group, a group port with no switch at its other
     * end, or a static LFT port (the switch's fallback when AR is off or the group is unusable)
     * that is not in the LID's group. The daemon refuses to push tables with any.
     */
    public static java.util.List<String> problems(ForwardingTables t, int limit) {
        java.util.List<String> out = new java.util.ArrayList<>();
        ArTables ar = t.ar();
        if (ar == null) {
            return out;
        }
        org.fabriclab.routing.fabric.Fabric f = t.fabric();
        for (int s = 0; s < f.switchCount() && out.size() < limit; s++) {
            int node = f.switchNode(s);
            for (int g = 1; g <= ar.groupCount(s) && out.size() < limit; g++) {
                for (int p : ar.ports(s, g)) {
                    int peer = p >= 1 && p <= f.portCount(node) ? f.peerNode(f.globalPort(node, p)) : org.fabriclab.routing.fabric.Fabric.NONE;
                    if (peer == org.fabriclab.routing.fabric.Fabric.NONE || !f.isSwitch(peer)) {
                        out.add(f.name(node) + ": AR group " + g + " has port " + p + ", which leads to no switch");
                    }
                }
            }
            for (int lid = 1; lid < ar.size(s) && out.size() < limit; lid++) {
                int g = ar.group(s, lid);
                if (g == 0) {
                    continue;
                }
                if (g > ar.groupCount(s)) {
                    out.add(f.name(node) + ": LID " + lid + " names AR group " + g + ", which is not defined");
                    continue;
                }
                int staticPort = t.port(s, lid);
                if (java.util.Arrays.stream(ar.ports(s, g)).noneMatch(p -> p == staticPort)) {
                    out.add(f.name(node) + ": LID " + lid + " has static port " + staticPort + " outside its AR group " + g + " "
                            + java.util.Arrays.toString(ar.ports(s, g)));
                }
            }
        }
        return out;
    }
}
