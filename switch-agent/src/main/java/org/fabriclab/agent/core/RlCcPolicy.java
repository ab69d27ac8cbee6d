package org.fabriclab.agent.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RL-CC's deployed policy (the RL-CC paper's boosted trees distilled from the learned policy): an
 * ensemble of regression trees over a fixed, named feature vector, held as flat arrays and
 * evaluated without allocation. The sum of the trees' leaves is the action {@code a}; the runtime
 * ({@link RlCc}) multiplies the flow's rate by {@code 1 + a}, clamped.
 *
 * <p>The file format, version 1 (text; {@code #} starts a comment, blank lines are skipped):
 * <pre>
 * fabriclab-rlcc-policy 1
 * tree                                   # a tree; its nodes follow, numbered from 0 (the root)
 * 0 split rtt_ratio 1.5 1 2              # node 0: rtt_ratio &lt; 1.5 goes to node 1, else node 2
 * 1 leaf 0.05                            # node 1: a leaf worth 0.05
 * 2 leaf -0.2
 * </pre>
 * Nodes of a tree are numbered 0..n-1, each once, in any order. The features ({@link #FEATURES}):
 * {@code rtt_ratio} (the last RTT over the flow's base RTT), {@code rtt_ratio_prev} (the one
 * before), {@code rtt_trend} (their difference), {@code rate_frac} (the flow's rate over the line
 * rate), {@code ack_rate_frac} (the ACKed bytes' rate over the last RTT over the line rate).
 *
 * <p>A decision's cost is the ensemble's worst case: per tree, the comparisons on its deepest
 * root-to-leaf path, plus one addition per tree into the sum; a policy costing more than
 * {@link #MAX_OPERATIONS} (the paper's budget on a ConnectX-6 Dx) is refused.
 */
public final class RlCcPolicy implements RlCc.Decider {
    /** The header line's magic word; the version follows it. */
    public static final String MAGIC = "fabriclab-rlcc-policy";
    public static final int VERSION = 1;
    /** The largest worst-case cost per decision: comparisons plus additions. */
    public static final int MAX_OPERATIONS = 150;
    /** The feature vector's names, in the order {@link #decide} reads them. */
    public static final List<String> FEATURES = List.of("rtt_ratio", "rtt_ratio_prev", "rtt_trend", "rate_frac", "ack_rate_frac");
    /** {@link #FEATURES}' indices. */
    public static final int RTT_RATIO = 0;
    public static final int RTT_RATIO_PREV = 1;
    public static final int RTT_TREND = 2;
    public static final int RATE_FRAC = 3;
    public static final int ACK_RATE_FRAC = 4;
    /** The policy shipped with this build (trained by {@code emulator train-cc}; its first lines say how), a resource beside this class. */
    public static final String SHIPPED = "rl-cc.policy";

    private static final int LEAF = -1;
    // per node over all trees (a tree's children are global indices): the feature or LEAF
    private final int[] feature;
    private final double[] threshold;
    private final int[] left;
    private final int[] right;
    private final double[] value;
    private final int[] roots;
    private final int cost;

    private RlCcPolicy(int[] feature, double[] threshold, int[] left, int[] right, double[] value, int[] roots, int cost) {
        this.feature = feature;
        this.threshold = threshold;
        this.left = left;
        this.right = right;
        this.value = value;
        this.roots = roots;
        this.cost = cost;
    }

    /** The worst-case operations of one decision (see the class comment). */
    public int cost() {
        return cost;
    }

    /** The number of trees. */
    public int trees() {
        return roots.length;
    }

    /** The action for {@code x} (one value per {@link #FEATURES} entry): the sum of the trees' leaves. */
    @Override
    public double decide(double[] x) {
        assert x.length == FEATURES.size();
        double sum = 0;
        for (int root : roots) {
            int n = root;
            while (feature[n] != LEAF) {
                n = x[feature[n]] < threshold[n] ? left[n] : right[n];
            }
            sum += value[n];
        }
        return sum;
    }

    /**
     * Reads the policy file {@code file}.
     *
     * @throws IllegalArgumentException one line: {@code file:line: reason}, or the file that cannot be read and why
     */
    public static RlCcPolicy read(String file) {
        try {
            return parse(file, Files.readString(Path.of(file), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(file + ": no such file");
        } catch (IOException | InvalidPathException e) {
            throw new IllegalArgumentException(file + ": cannot be read (" + e.getMessage() + ")");
        }
    }

    /** The policy shipped with this build ({@link #SHIPPED}). */
    public static RlCcPolicy shipped() {
        try (InputStream in = RlCcPolicy.class.getResourceAsStream(SHIPPED)) {
            if (in == null) {
                throw new IllegalStateException("the shipped RL-CC policy " + SHIPPED + " is missing from the build");
            }
            return parse(SHIPPED, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Parses a policy file's {@code text}; {@code file} names it in errors.
     *
     * @throws IllegalArgumentException one line, {@code file:line: reason}
     */
    public static RlCcPolicy parse(String file, String text) {
        String[] lines = text.split("\n", -1);
        int first = 0;
        while (first < lines.length && strip(lines[first]).isEmpty()) {
            first++;
        }
        if (first == lines.length) {
            throw new IllegalArgumentException(file + ": empty; a policy starts with '" + MAGIC + " " + VERSION + "'");
        }
        String[] head = strip(lines[first]).split("\\s+");
        if (!head[0].equals(MAGIC) || head.length != 2) {
            throw error(file, first, "not a policy: the first line must be '" + MAGIC + " " + VERSION + "'");
        }
        if (!head[1].equals(Integer.toString(VERSION))) {
            throw error(file, first, "version " + head[1] + " is not supported; this build reads version " + VERSION);
        }
        List<List<String[]>> trees = new ArrayList<>();
        List<List<Integer>> lineNos = new ArrayList<>();
        for (int i = first + 1; i < lines.length; i++) {
            String l = strip(lines[i]);
            if (l.isEmpty()) {
                continue;
            }
            String[] t = l.split("\\s+");
            if (t[0].equals("tree") && t.length == 1) {
                trees.add(new ArrayList<>());
                lineNos.add(new ArrayList<>());
            } else if (trees.isEmpty()) {
                throw error(file, i, "expected 'tree' before any node");
            } else {
                trees.get(trees.size() - 1).add(t);
                lineNos.get(lineNos.size() - 1).add(i);
            }
        }
        if (trees.isEmpty()) {
            throw error(file, first, "the policy has no trees");
        }
        int total = trees.stream().mapToInt(List::size).sum();
        int[] feature = new int[total];
        double[] threshold = new double[total];
        int[] left = new int[total];
        int[] right = new int[total];
        double[] value = new double[total];
        int[] line = new int[total];
        int[] roots = new int[trees.size()];
        int base = 0;
        int cost = 0;
        for (int t = 0; t < trees.size(); t++) {
            List<String[]> nodes = trees.get(t);
            int n = nodes.size();
            if (n == 0) {
                throw error(file, lineNos.get(t).isEmpty() ? first : lineNos.get(t).get(0), "tree " + t + " has no nodes");
            }
            boolean[] seen = new boolean[n];
            for (int k = 0; k < n; k++) {
                String[] tok = nodes.get(k);
                int ln = lineNos.get(t).get(k);
                int id = integer(file, ln, tok[0], "node number");
                if (id < 0 || id >= n) {
                    throw error(file, ln, "node " + id + " is out of tree " + t + "'s range 0.." + (n - 1));
                }
                if (seen[id]) {
                    throw error(file, ln, "node " + id + " of tree " + t + " is defined twice");
                }
                seen[id] = true;
                int g = base + id;
                line[g] = ln;
                if (tok.length == 3 && tok[1].equals("leaf")) {
                    feature[g] = LEAF;
                    value[g] = number(file, ln, tok[2], "leaf value");
                } else if (tok.length == 6 && tok[1].equals("split")) {
                    feature[g] = FEATURES.indexOf(tok[2]);
                    if (feature[g] < 0) {
                        throw error(file, ln, "unknown feature '" + tok[2] + "'; the features are " + String.join(", ", FEATURES));
                    }
                    threshold[g] = number(file, ln, tok[3], "threshold");
                    for (int c = 0; c < 2; c++) {
                        int child = integer(file, ln, tok[4 + c], "child");
                        if (child < 0 || child >= n) {
                            throw error(file, ln, "node " + id + " refers to node " + child + ", missing from tree " + t + " (0.." + (n - 1) + ")");
                        }
                        (c == 0 ? left : right)[g] = base + child;
                    }
                } else {
                    throw error(file, ln, "malformed node; expected 'N leaf VALUE' or 'N split FEATURE THRESHOLD LEFT RIGHT'");
                }
            }
            cost += depth(file, base, n, feature, left, right, line) + 1;
            roots[t] = base;
            base += n;
        }
        if (cost > MAX_OPERATIONS) {
            throw new IllegalArgumentException(file + ": a decision costs up to " + cost + " operations (comparisons on each tree's deepest path"
                    + " plus one addition per tree), more than the budget of " + MAX_OPERATIONS);
        }
        return new RlCcPolicy(feature, threshold, left, right, value, roots, cost);
    }

    /**
     * The comparisons on the deepest path of the tree of nodes {@code base..base+n-1}, iteratively;
     * refuses a node reached twice (a cycle or a shared node) or never.
     */
    private static int depth(String file, int base, int n, int[] feature, int[] left, int[] right, int[] line) {
        int[] depth = new int[n];
        boolean[] reached = new boolean[n];
        int[] stack = new int[n];
        int top = 0;
        stack[top++] = base;
        reached[0] = true;
        int deepest = 0;
        while (top > 0) {
            int g = stack[--top];
            if (feature[g] == LEAF) {
                deepest = Math.max(deepest, depth[g - base]);
                continue;
            }
            for (int child : new int[] {left[g], right[g]}) {
                if (reached[child - base]) {
                    throw error(file, line[g], "node " + (g - base) + " leads to node " + (child - base)
                            + ", already reached: a cycle or a shared node, not a tree");
                }
                reached[child - base] = true;
                depth[child - base] = depth[g - base] + 1;
                stack[top++] = child;
            }
        }
        for (int k = 0; k < n; k++) {
            if (!reached[k]) {
                throw error(file, line[base + k], "node " + k + " is not reachable from its tree's root (node 0)");
            }
        }
        return deepest;
    }

    private static String strip(String l) {
        int hash = l.indexOf('#');
        return (hash < 0 ? l : l.substring(0, hash)).strip();
    }

    private static int integer(String file, int line, String s, String what) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw error(file, line, what + " '" + s + "' is not an integer");
        }
    }

    private static double number(String file, int line, String s, String what) {
        double d;
        try {
            d = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw error(file, line, what + " '" + s + "' is not a number");
        }
        if (!Double.isFinite(d)) {
            throw error(file, line, what + " " + s + " is not finite");
        }
        return d;
    }

    private static IllegalArgumentException error(String file, int index, String reason) {
        return new IllegalArgumentException(file + ":" + (index + 1) + ": " + reason);
    }

    @Override
    public String toString() {
        return "RlCcPolicy[trees=" + roots.length + ", nodes=" + feature.length + ", cost=" + cost + ", roots=" + Arrays.toString(roots) + "]";
    }
}
