package org.fabriclab.agent.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * How a job's ranks are put on a fabric's free hosts (hosts numbered in the fabric's endpoint
 * order, which packs a switch's hosts and a Dragonfly group's switches together), as a batch
 * scheduler allocates nodes: the allocation decides which links a job shares with another (De
 * Sensi et al., SC'19, section 3.1: the same benchmark's spread grows with the groups it spans).
 * Made off the hot path; the answer is rank order (rank r on the r-th host returned).
 */
public enum Placement {
    /** The lowest-numbered free hosts, in order: consecutive hosts, packed into as few switches and groups as fit. */
    CONTIGUOUS,
    /** Free hosts drawn at random (seeded), ranks in host order: a fragmented machine's allocation. */
    RANDOM,
    /**
     * Round-robin over the groups (a Dragonfly's; with no groups, every k-th free host, k the free
     * hosts over the job's): rank 0 in the first group, rank 1 in the next, so that the job spans
     * every group and neighbouring ranks are in different ones.
     */
    INTERLEAVED;

    /** The names the command lines take. */
    public static final String NAMES = "contiguous, random or interleaved";

    /** The placement named {@code name}, any case. */
    public static Placement byName(String name) {
        for (Placement p : values()) {
            if (p.cliName().equals(name.strip().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown placement '" + name + "'; use " + NAMES);
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Takes {@code n} of the hosts not {@code taken} (and marks them taken): per rank, its host.
     *
     * @param groupOfHost per host, its group (-1: none); interleaved spreads over them
     * @param random      random placement's draws
     * @throws IllegalArgumentException if fewer than {@code n} hosts are free
     */
    public int[] place(int n, boolean[] taken, int[] groupOfHost, SplittableRandom random) {
        int[] free = new int[taken.length];
        int freeCount = 0;
        for (int e = 0; e < taken.length; e++) {
            if (!taken[e]) {
                free[freeCount++] = e;
            }
        }
        if (n > freeCount) {
            throw new IllegalArgumentException("asks for " + n + " hosts; " + freeCount + " are left");
        }
        int[] out = switch (this) {
            case CONTIGUOUS -> Arrays.copyOf(free, n);
            case RANDOM -> {
                for (int i = 0; i < n; i++) { // a partial Fisher-Yates shuffle: the first n are a uniform draw
                    int j = i + random.nextInt(freeCount - i);
                    int x = free[i];
                    free[i] = free[j];
                    free[j] = x;
                }
                int[] drawn = Arrays.copyOf(free, n);
                Arrays.sort(drawn);
                yield drawn;
            }
            case INTERLEAVED -> interleaved(n, Arrays.copyOf(free, freeCount), groupOfHost);
        };
        for (int e : out) {
            taken[e] = true;
        }
        return out;
    }

    private static int[] interleaved(int n, int[] free, int[] groupOfHost) {
        TreeMap<Integer, List<Integer>> byGroup = new TreeMap<>();
        for (int e : free) {
            byGroup.computeIfAbsent(groupOfHost[e], k -> new ArrayList<>()).add(e);
        }
        int[] out = new int[n];
        if (byGroup.size() < 2) { // no groups to go round: spread evenly over the free hosts
            for (int r = 0; r < n; r++) {
                out[r] = free[(int) ((long) r * free.length / n)];
            }
            return out;
        }
        List<List<Integer>> groups = new ArrayList<>(byGroup.values());
        int[] next = new int[groups.size()];
        int g = 0;
        for (int r = 0; r < n; g = (g + 1) % groups.size()) {
            if (next[g] < groups.get(g).size()) {
                out[r++] = groups.get(g).get(next[g]++);
            }
        }
        return out;
    }
}
