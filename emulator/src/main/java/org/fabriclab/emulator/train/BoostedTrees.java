package org.fabriclab.emulator.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.fabriclab.agent.core.RlCcPolicy;

/**
 * Gradient-boosted regression trees for squared loss, small enough for a NIC (the RL-CC paper's
 * distillation, its Figure 2: the student minimises the RMSE to the teacher's actions): each tree
 * fits the residuals left by the trees before it, greedily, level by level, to at most {@code depth}
 * comparisons on any path, a split only where both sides keep {@code minLeaf} samples; a leaf holds
 * its samples' mean residual times the learning rate. The first tree's leaves carry the mean
 * action too, so the sum of the leaves is the whole prediction (the policy file has no constant).
 *
 * <p>Deterministic: each feature's samples are sorted once (ties by sample index); a split is taken
 * only where it is strictly better than the best found before it, features in order, thresholds
 * ascending. Thresholds are the midpoints between neighbouring distinct values, written by {@link
 * Double#toString} so that the file reads back to the very same numbers.
 */
public final class BoostedTrees {
    private static final int LEAF = -1;

    /** One fitted tree: per node its feature (or {@link #LEAF}), threshold, children, leaf value. */
    private record Tree(int[] feature, double[] threshold, int[] left, int[] right, double[] value) {
        double predict(double[] x) {
            int n = 0;
            while (feature[n] != LEAF) {
                n = x[feature[n]] < threshold[n] ? left[n] : right[n];
            }
            return value[n];
        }
    }

    private final List<Tree> trees;

    private BoostedTrees(List<Tree> trees) {
        this.trees = trees;
    }

    /** The sum of the trees' leaves for {@code x}. */
    public double predict(double[] x) {
        double sum = 0;
        for (Tree t : trees) {
            sum += t.predict(x);
        }
        return sum;
    }

    /**
     * Fits {@code trees} trees of at most {@code depth} levels to {@code y} over the rows of {@code x}.
     *
     * @param x         the samples' features, one row per sample, {@link RlCcPolicy#FEATURES} wide
     * @param rate      the learning rate (shrinkage), in (0, 1]
     * @param minLeaf   the fewest samples a leaf keeps
     */
    public static BoostedTrees fit(double[][] x, double[] y, int trees, int depth, double rate, int minLeaf) {
        int n = y.length;
        int features = RlCcPolicy.FEATURES.size();
        Integer[][] boxed = new Integer[features][n];
        int[][] sorted = new int[features][];
        for (int f = 0; f < features; f++) {
            for (int i = 0; i < n; i++) {
                boxed[f][i] = i;
            }
            int ff = f;
            Arrays.sort(boxed[f], (a, b) -> {
                int c = Double.compare(x[a][ff], x[b][ff]);
                return c != 0 ? c : Integer.compare(a, b);
            });
            sorted[f] = Arrays.stream(boxed[f]).mapToInt(Integer::intValue).toArray();
        }
        double mean = Arrays.stream(y).sum() / Math.max(1, n);
        double[] residual = new double[n];
        for (int i = 0; i < n; i++) {
            residual[i] = y[i] - mean;
        }
        List<Tree> out = new ArrayList<>();
        for (int t = 0; t < trees; t++) {
            Tree tree = grow(x, residual, sorted, depth, rate, minLeaf, t == 0 ? mean : 0);
            out.add(tree);
            for (int i = 0; i < n; i++) {
                residual[i] -= tree.predict(x[i]) - (t == 0 ? mean : 0);
            }
        }
        return new BoostedTrees(List.copyOf(out));
    }

    /** One tree over the residuals {@code r}, grown level by level; {@code offset} is added to every leaf. */
    private static Tree grow(double[][] x, double[] r, int[][] sorted, int depth, double rate, int minLeaf, double offset) {
        int n = r.length;
        int maxNodes = (1 << (depth + 1)) - 1;
        int[] feature = new int[maxNodes];
        double[] threshold = new double[maxNodes];
        int[] left = new int[maxNodes];
        int[] right = new int[maxNodes];
        double[] value = new double[maxNodes];
        int[] nodeOf = new int[n]; // every sample starts at the root, node 0
        int nodes = 1;
        List<Integer> level = List.of(0);
        for (int d = 0; d <= depth; d++) {
            List<Integer> next = new ArrayList<>();
            for (int node : level) {
                double sum = 0;
                int count = 0;
                for (int i = 0; i < n; i++) {
                    if (nodeOf[i] == node) {
                        sum += r[i];
                        count++;
                    }
                }
                value[node] = (count == 0 ? 0 : sum / count) * rate + offset;
                feature[node] = LEAF;
                if (d == depth || count < 2 * minLeaf) {
                    continue;
                }
                // the split that most reduces the squared error: the largest sL^2/nL + sR^2/nR
                double best = sum * sum / count;
                int bestFeature = LEAF;
                double bestThreshold = 0;
                for (int f = 0; f < sorted.length; f++) {
                    double sl = 0;
                    int nl = 0;
                    int prev = -1;
                    for (int i : sorted[f]) {
                        if (nodeOf[i] != node) {
                            continue;
                        }
                        if (prev >= 0 && nl >= minLeaf && count - nl >= minLeaf && x[i][f] > x[prev][f]) {
                            double gain = sl * sl / nl + (sum - sl) * (sum - sl) / (count - nl);
                            if (gain > best + 1e-12 * Math.abs(best)) {
                                best = gain;
                                bestFeature = f;
                                bestThreshold = x[prev][f] + (x[i][f] - x[prev][f]) / 2;
                            }
                        }
                        sl += r[i];
                        nl++;
                        prev = i;
                    }
                }
                if (bestFeature == LEAF) {
                    continue;
                }
                feature[node] = bestFeature;
                threshold[node] = bestThreshold;
                left[node] = nodes++;
                right[node] = nodes++;
                for (int i = 0; i < n; i++) {
                    if (nodeOf[i] == node) {
                        nodeOf[i] = x[i][bestFeature] < bestThreshold ? left[node] : right[node];
                    }
                }
                next.add(left[node]);
                next.add(right[node]);
            }
            level = next;
        }
        return new Tree(Arrays.copyOf(feature, nodes), Arrays.copyOf(threshold, nodes), Arrays.copyOf(left, nodes),
                Arrays.copyOf(right, nodes), Arrays.copyOf(value, nodes));
    }

    /** The ensemble as the body of a {@code fabriclab-rlcc-policy 1} file: a {@code tree} line, then its nodes. */
    public String policyText() {
        StringBuilder s = new StringBuilder();
        for (Tree t : trees) {
            s.append("tree\n");
            for (int k = 0; k < t.feature.length; k++) {
                if (t.feature[k] == LEAF) {
                    s.append(String.format(Locale.ROOT, "%d leaf %s\n", k, Double.toString(t.value[k])));
                } else {
                    s.append(String.format(Locale.ROOT, "%d split %s %s %d %d\n", k, RlCcPolicy.FEATURES.get(t.feature[k]),
                            Double.toString(t.threshold[k]), t.left[k], t.right[k]));
                }
            }
        }
        return s.toString();
    }
}
