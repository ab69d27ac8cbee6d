package org.fabriclab.agent.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * What a {@link TrafficPattern} needs of the whole fabric, made once for every host: the
 * permutation (seeded, so every live host and the simulator agree on it) and the hosts of each
 * group (adversarial traffic: group-shift and adv+N). Hosts are numbered 0..{@code hosts}-1 in the driver's order (the fabric's
 * endpoint order); each host gets its own {@link Destinations} from {@link #destinations}.
 * A job's plan ({@link #ofJob}) numbers the job's ranks instead and its choosers answer the
 * ranks' hosts. Immutable; made off the hot path.
 */
public final class TrafficPlan {
    /**
     * The most jobs one fabric runs ({@link #ofJob}): the command lines refuse more, and the live
     * plane's {@code fabric_job_*} metrics keep a series per job only for this many, so their
     * {@code job} label stays bounded whatever the hosts report.
     */
    public static final int MAX_JOBS = 16;

    private final TrafficPattern pattern;
    private final int hosts;
    private final int[] permutation;
    private final int[][] hostsOfGroup;
    private final int[] groupOfHost;
    /** Made by {@link #among}: the hosts are the sender's destinations, the sender not among them. */
    private final boolean among;
    /** Halo3d: per host (rank), its neighbours in the grid; null for the other patterns. */
    private final int[][] neighbours;
    /** A job's plan: per rank, its host; null: the plan numbers hosts. */
    private final int[] hostOfRank;
    private final int messagePackets;

    private TrafficPlan(TrafficPattern pattern, int hosts, int[] permutation, int[][] hostsOfGroup, int[] groupOfHost, boolean among) {
        this(pattern, hosts, permutation, hostsOfGroup, groupOfHost, among, null, 1);
    }

    private TrafficPlan(TrafficPattern pattern, int hosts, int[] permutation, int[][] hostsOfGroup, int[] groupOfHost, boolean among,
                        int[] hostOfRank, int messagePackets) {
        this.pattern = pattern;
        this.among = among;
        this.neighbours = pattern.kind() == TrafficPattern.Kind.HALO3D ? halo3d(hosts) : null;
        this.hostOfRank = hostOfRank;
        this.messagePackets = messagePackets;
        this.hosts = hosts;
        this.permutation = permutation;
        this.hostsOfGroup = hostsOfGroup;
        this.groupOfHost = groupOfHost;
    }

    /**
     * The plan of {@code pattern} over {@code hosts} hosts.
     *
     * @param groupOfHost per host, its group number in the fabric model ({@code Fabric.group} of
     *                    its node; -1: none); needed by adversarial patterns ({@code group-shift},
     *                    {@code adv+N}) only, may be null otherwise
     * @param seed        the permutation's seed (the run's seed: the same on every host)
     * @throws IllegalArgumentException if adversarial traffic has fewer than two groups of hosts, or
     *                                  not more groups than its offset N (adv+N needs N + 1 at least)
     */
    public static TrafficPlan of(TrafficPattern pattern, int hosts, int[] groupOfHost, long seed) {
        if (hosts < 2) {
            throw new IllegalArgumentException(pattern.cliName() + " traffic needs at least two hosts, not " + hosts);
        }
        int[] permutation = pattern.kind() == TrafficPattern.Kind.PERMUTATION
                ? derangement(hosts, new SplittableRandom(seed ^ 0x5DEECE66DL)) : null;
        int[] group = new int[hosts];
        int[][] byGroup = pattern.kind() == TrafficPattern.Kind.ADVERSARIAL ? hostsOfGroups(pattern, groupOfHost, hosts, group) : new int[0][];
        return new TrafficPlan(pattern, hosts, permutation, byGroup, group, false);
    }

    /**
     * The plan of a job running {@code pattern} among its ranks: rank r on host {@code hostOfRank[r]}
     * (a fabric's host number), every pick a rank of the job, answered as its host; each message of
     * {@code messagePackets} packets goes to one destination.
     *
     * @param seed the permutation's seed (the run's and the job's)
     * @throws IllegalArgumentException if the job has fewer than two ranks, a rank's host twice, a
     *                                  message no packet, or the pattern needs the fabric's groups
     */
    public static TrafficPlan ofJob(TrafficPattern pattern, int[] hostOfRank, int messagePackets, long seed) {
        int ranks = hostOfRank.length;
        if (ranks < 2) {
            throw new IllegalArgumentException(pattern.cliName() + " traffic needs at least two ranks, not " + ranks);
        }
        if (pattern.kind() == TrafficPattern.Kind.ADVERSARIAL) {
            throw new IllegalArgumentException(pattern.cliName() + " traffic goes between the fabric's groups, not among a job's ranks");
        }
        if (messagePackets < 1) {
            throw new IllegalArgumentException("a message has at least one packet, not " + messagePackets);
        }
        if (Arrays.stream(hostOfRank).distinct().count() != ranks) {
            throw new IllegalArgumentException("a job's ranks are on different hosts; some share one");
        }
        int[] permutation = pattern.kind() == TrafficPattern.Kind.PERMUTATION
                ? derangement(ranks, new SplittableRandom(seed ^ 0x5DEECE66DL)) : null;
        return new TrafficPlan(pattern, ranks, permutation, new int[0][], new int[ranks], false, hostOfRank.clone(), messagePackets);
    }

    /**
     * A plan over an explicit list of {@code destinations} that does not hold the sender (the live
     * plane's fixed destination lists): uniform or all-to-all over the list only.
     */
    public static TrafficPlan among(TrafficPattern pattern, int destinations) {
        if (pattern.kind() != TrafficPattern.Kind.UNIFORM && pattern.kind() != TrafficPattern.Kind.ALL_TO_ALL) {
            throw new IllegalArgumentException(pattern.cliName() + " traffic needs the whole fabric's hosts, not a list of destinations");
        }
        if (destinations < 1) {
            throw new IllegalArgumentException("traffic needs at least one destination");
        }
        return new TrafficPlan(pattern, destinations, null, new int[0][], new int[destinations], true);
    }

    public TrafficPattern pattern() {
        return pattern;
    }

    /** Packets per message: one, or a job's ({@link #ofJob}). */
    public int messagePackets() {
        return messagePackets;
    }

    /** Hosts the plan numbers (with {@link #among}: the destinations). */
    public int hosts() {
        return hosts;
    }

    /**
     * Host {@code self}'s destination chooser, drawing from {@code random} (the host's own
     * generator, which its {@link Arrivals} may share: the draws interleave as the driver calls
     * them); {@code self} is -1 for a plan made by {@link #among}.
     */
    public Destinations destinations(int self, SplittableRandom random) {
        if (among ? self != -1 : self < 0 || self >= hosts) {
            throw new IllegalArgumentException("host " + self + " is not one of the plan's " + hosts + " hosts"
                    + (among ? " (a plan among destinations takes -1: the sender is not one of them)" : ""));
        }
        int fixed = switch (pattern.kind()) {
            case PERMUTATION -> permutation[self];
            case ALLREDUCE_RING -> self + 1 == hosts ? 0 : self + 1;
            default -> -1;
        };
        int[] group = switch (pattern.kind()) {
            case ADVERSARIAL -> hostsOfGroup[(groupOfHost[self] + pattern.shift()) % hostsOfGroup.length];
            case HALO3D -> neighbours[self];
            default -> null;
        };
        return new Destinations(pattern.kind(), self, hosts, random, fixed, group, hostOfRank, messagePackets);
    }

    /** Halo3d's grid of {@code n} hosts: its sides x <= y <= z, x * y * z = n, the most cubic (the least surface). */
    public static int[] grid3d(int n) {
        int[] best = {1, 1, n};
        long bestSurface = Long.MAX_VALUE;
        for (int x = 1; (long) x * x * x <= n; x++) {
            if (n % x != 0) {
                continue;
            }
            int rest = n / x;
            for (int y = x; (long) y * y <= rest; y++) {
                if (rest % y != 0) {
                    continue;
                }
                int z = rest / y;
                long surface = (long) x * y + (long) y * z + (long) x * z;
                if (surface < bestSurface) {
                    bestSurface = surface;
                    best = new int[] {x, y, z};
                }
            }
        }
        return best;
    }

    /**
     * Per host of a halo3d plan of {@code n}, its neighbours: one step either way along each side of
     * the {@link #grid3d} grid, wrapping, each neighbour once and never the host itself (a side of 2
     * gives one neighbour along it, a side of 1 none). Host i sits at (i mod x, i / x mod y, i / xy).
     */
    static int[][] halo3d(int n) {
        int[][][] byDimension = halo3dByDimension(n);
        int[][] out = new int[n][];
        for (int i = 0; i < n; i++) {
            int[][] d = byDimension[i];
            out[i] = new int[d[0].length + d[1].length + d[2].length];
            int k = 0;
            for (int[] along : d) {
                System.arraycopy(along, 0, out[i], k, along.length);
                k += along.length;
            }
        }
        return out;
    }

    /**
     * {@link #halo3d}'s neighbours apart by the side they lie along: per host, per dimension x, y, z,
     * the neighbour one step down then the one up (one where the side is 2, none where it is 1). The
     * open-loop halo3d and the closed-loop one ({@code ClosedLoop.Kind.HALO3D}) share this grid.
     */
    static int[][][] halo3dByDimension(int n) {
        int[] side = grid3d(n);
        int[][][] out = new int[n][3][];
        for (int i = 0; i < n; i++) {
            int[] at = {i % side[0], i / side[0] % side[1], i / (side[0] * side[1])};
            for (int d = 0; d < 3; d++) {
                int[] to = at.clone();
                to[d] = Math.floorMod(at[d] - 1, side[d]);
                int down = to[0] + side[0] * (to[1] + side[1] * to[2]);
                to[d] = Math.floorMod(at[d] + 1, side[d]);
                int up = to[0] + side[0] * (to[1] + side[1] * to[2]);
                out[i][d] = down == i ? new int[0] : down == up ? new int[] {down} : new int[] {down, up};
            }
        }
        return out;
    }

    /**
     * The hosts of each group, numbered 0.. in order of the groups' numbers; fills {@code groupOfIndex}.
     * Refuses fewer than two groups, and an offset that would reach the sender's own group.
     */
    private static int[][] hostsOfGroups(TrafficPattern pattern, int[] groupOfHost, int hosts, int[] groupOfIndex) {
        String name = pattern.cliName();
        if (groupOfHost == null || groupOfHost.length != hosts) {
            throw new IllegalArgumentException(name + " traffic needs the group of each of the " + hosts + " hosts");
        }
        TreeMap<Integer, List<Integer>> byGroup = new TreeMap<>();
        for (int e = 0; e < hosts; e++) {
            byGroup.computeIfAbsent(groupOfHost[e], k -> new ArrayList<>()).add(e);
        }
        if (byGroup.size() < 2 || byGroup.containsKey(-1)) {
            throw new IllegalArgumentException(name + " traffic needs hosts in two or more groups (a dragonfly or dragonfly-plus "
                    + "topology), but this fabric's hosts are in " + (byGroup.containsKey(-1) ? "no group" : "one group"));
        }
        if (pattern.shift() >= byGroup.size()) {
            throw new IllegalArgumentException(name + " traffic sends to the group " + pattern.shift() + " after the sender's, so it needs "
                    + "more than " + pattern.shift() + " groups of hosts, but this fabric's hosts are in " + byGroup.size()
                    + " (adv+1 to adv+" + (byGroup.size() - 1) + ")");
        }
        int[][] out = new int[byGroup.size()][];
        int i = 0;
        for (List<Integer> members : byGroup.values()) {
            out[i] = members.stream().mapToInt(Integer::intValue).toArray();
            for (int e : out[i]) {
                groupOfIndex[e] = i;
            }
            i++;
        }
        return out;
    }

    /** A random permutation of 0..n-1 with no fixed point (Sattolo's algorithm: one cycle). */
    public static int[] derangement(int n, SplittableRandom r) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i);
            int x = p[i];
            p[i] = p[j];
            p[j] = x;
        }
        return p;
    }
}
