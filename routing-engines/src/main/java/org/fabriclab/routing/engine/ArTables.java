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
}
