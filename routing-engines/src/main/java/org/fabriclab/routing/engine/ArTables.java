package org.fabriclab.routing.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;

/**
 * Adaptive-routing tables of every switch, as the InfiniBand Adaptive Routing Manager computes
 * them beside the static LFT: per switch, AR groups (sets of ports, numbered from 1; some ports may
 * be detours, on non-minimal paths, taken only while the minimal ports are more loaded) and an AR
 * LFT (per LID, the group a packet may choose from; 0 for none, the static port then); the input
 * ports whose packets keep to the static LFT; and the lane turns, port pairs whose packets move to
 * another virtual lane (the SL-to-VL entries that make detours deadlock-free). Immutable once built.
 */
public final class ArTables {
    private static final int[] NONE = new int[0];
    private final int[][][] groups;
    private final int[][][] detours;
    private final short[][] groupOfLid;
    private final int[][] staticInputs;
    private final int[][][] laneTurns;

    private ArTables(int[][][] groups, int[][][] detours, short[][] groupOfLid, int[][] staticInputs, int[][][] laneTurns) {
        this.groups = groups;
        this.detours = detours;
        this.groupOfLid = groupOfLid;
        this.staticInputs = staticInputs;
        this.laneTurns = laneTurns;
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

    /** The detour ports of group {@code g} of switch {@code s} (a subset of its ports), ascending (a copy; empty if none). */
    public int[] detours(int s, int g) {
        return detours[s][g - 1].clone();
    }

    /** The AR group of {@code lid} at switch {@code s}, 0 for none. */
    public int group(int s, int lid) {
        return lid < groupOfLid[s].length ? groupOfLid[s][lid] : 0;
    }

    /** Entries of switch {@code s}'s AR LFT (one per LID, as long as its LFT). */
    public int size(int s) {
        return groupOfLid[s].length;
    }

    /** The input ports of switch {@code s} whose packets follow the static LFT even with AR on, ascending (a copy). */
    public int[] staticInputs(int s) {
        return staticInputs[s].clone();
    }

    /** True if packets arriving at switch {@code s} on {@code port} follow the static LFT. */
    public boolean staticInput(int s, int port) {
        return Arrays.binarySearch(staticInputs[s], port) >= 0;
    }

    /** The lane turns of switch {@code s}: {@code {in, out, vl}}, every SL from {@code in} to {@code out} on {@code vl} (a copy). */
    public int[][] laneTurns(int s) {
        int[][] out = new int[laneTurns[s].length][];
        for (int i = 0; i < out.length; i++) {
            out[i] = laneTurns[s][i].clone();
        }
        return out;
    }

    /** The lane a packet takes from {@code in} to {@code out} at switch {@code s}: its lane turn's, else 0. */
    public int lane(int s, int in, int out) {
        for (int[] t : laneTurns[s]) {
            if (t[0] == in && t[1] == out) {
                return t[2];
            }
        }
        return 0;
    }

    /** The most lanes any lane turn needs (1 without turns). */
    public int laneCount() {
        int n = 1;
        for (int[][] perSwitch : laneTurns) {
            for (int[] t : perSwitch) {
                n = Math.max(n, t[2] + 1);
            }
        }
        return n;
    }

    /** Fills the AR tables of one routing run; groups with the same ports (and detours) on one switch are one group. */
    public static final class Builder {
        private final List<List<int[]>> groups = new ArrayList<>();
        private final List<List<int[]>> detours = new ArrayList<>();
        private final List<Map<String, Integer>> byPorts = new ArrayList<>();
        private final short[][] groupOfLid;
        private final int[][] staticInputs;
        private final List<List<int[]>> laneTurns = new ArrayList<>();

        private Builder(int switches, int lids) {
            groupOfLid = new short[switches][lids];
            staticInputs = new int[switches][];
            for (int s = 0; s < switches; s++) {
                groups.add(new ArrayList<>());
                detours.add(new ArrayList<>());
                byPorts.add(new HashMap<>());
                laneTurns.add(new ArrayList<>());
            }
        }

        /** The number of the group of switch {@code s} with exactly {@code ports} (defined now if new). */
        public int group(int s, int[] ports) {
            return group(s, ports, NONE);
        }

        /** The number of the group of switch {@code s} with {@code ports}, of which {@code detourPorts} are detours. */
        public int group(int s, int[] ports, int[] detourPorts) {
            int[] sorted = ports.clone();
            Arrays.sort(sorted);
            int[] d = detourPorts.clone();
            Arrays.sort(d);
            return byPorts.get(s).computeIfAbsent(Arrays.toString(sorted) + Arrays.toString(d), k -> {
                groups.get(s).add(sorted);
                detours.get(s).add(d);
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

        /** Packets arriving at switch {@code s} on {@code ports} follow the static LFT. */
        public Builder staticInputs(int s, int[] ports) {
            int[] sorted = ports.clone();
            Arrays.sort(sorted);
            staticInputs[s] = sorted;
            return this;
        }

        /** Every SL from {@code in} to {@code out} at switch {@code s} travels on lane {@code vl}. */
        public Builder laneTurn(int s, int in, int out, int vl) {
            laneTurns.get(s).add(new int[] {in, out, vl});
            return this;
        }

        public ArTables build() {
            int[][][] g = new int[groups.size()][][];
            int[][][] d = new int[groups.size()][][];
            int[][][] turns = new int[groups.size()][][];
            int[][] inputs = new int[groups.size()][];
            for (int s = 0; s < g.length; s++) {
                g[s] = groups.get(s).toArray(new int[0][]);
                d[s] = detours.get(s).toArray(new int[0][]);
                turns[s] = laneTurns.get(s).toArray(new int[0][]);
                inputs[s] = staticInputs[s] == null ? NONE : staticInputs[s];
            }
            return new ArTables(g, d, groupOfLid, inputs, turns);
        }
    }

    /**
     * What is wrong with {@code t}'s AR tables, at most {@code limit} problems (none: an empty
     * list): an AR LFT entry naming an undefined group, a group port with no switch at its other
     * end, or a static LFT port (the switch's fallback when AR is off or the group is unusable)
     * that is not in the LID's group. The daemon refuses to push tables with any.
     */
    public static List<String> problems(ForwardingTables t, int limit) {
        List<String> out = new ArrayList<>();
        ArTables ar = t.ar();
        if (ar == null) {
            return out;
        }
        Fabric f = t.fabric();
        for (int s = 0; s < f.switchCount() && out.size() < limit; s++) {
            int node = f.switchNode(s);
            for (int g = 1; g <= ar.groupCount(s) && out.size() < limit; g++) {
                for (int p : ar.ports(s, g)) {
                    int peer = p >= 1 && p <= f.portCount(node) ? f.peerNode(f.globalPort(node, p)) : Fabric.NONE;
                    if (peer == Fabric.NONE || !f.isSwitch(peer)) {
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
                if (Arrays.stream(ar.ports(s, g)).noneMatch(p -> p == staticPort)) {
                    out.add(f.name(node) + ": LID " + lid + " has static port " + staticPort + " outside its AR group " + g + " "
                            + Arrays.toString(ar.ports(s, g)));
                }
            }
        }
        return out;
    }
}
