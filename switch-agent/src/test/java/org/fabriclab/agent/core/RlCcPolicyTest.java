package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * RL-CC's policy file: a hand-computed decision, the cost count, every refusal with its file, line
 * and reason, and the check made at load of what it answers for a flow at the line rate whose RTT
 * is at its base.
 */
class RlCcPolicyTest {
    private static final String TINY = """
            fabriclab-rlcc-policy 1
            # two trees
            tree
            0 split rtt_ratio 1.5 1 2
            1 leaf 0.05
            2 split rate_frac 0.5 3 4
            3 leaf -0.1
            4 leaf -0.3
            tree
            0 split rtt_trend 0 1 2
            1 leaf 0.01
            2 leaf -0.02
            """;

    @Test
    void decidesTheSumOfTheLeavesHandComputed() {
        RlCcPolicy p = RlCcPolicy.parse("tiny.policy", TINY);
        // features: rtt_ratio, rtt_ratio_prev, rtt_trend, rate_frac, ack_rate_frac
        assertEquals(0.05 + 0.01, p.decide(new double[] {1.2, 1.0, -0.1, 0.9, 0.9}), 1e-12);
        assertEquals(-0.3 - 0.02, p.decide(new double[] {2.0, 1.0, 1.0, 0.9, 0.9}), 1e-12);
        assertEquals(-0.1 + 0.01, p.decide(new double[] {2.0, 2.1, -0.1, 0.2, 0.2}), 1e-12);
        // threshold equality goes right
        assertEquals(-0.1 - 0.02, p.decide(new double[] {1.5, 1.0, 0, 0.2, 0.2}), 1e-12);
        // deepest paths 2 and 1 comparisons, plus one addition per tree
        assertEquals(2 + 1 + 2, p.cost());
        assertEquals(2, p.trees());
    }

    private static String refusal(String text) {
        return assertThrows(IllegalArgumentException.class, () -> RlCcPolicy.parse("p.policy", text)).getMessage();
    }

    @Test
    void refusesWrongMagicAndVersion() {
        assertEquals("p.policy:1: not a policy: the first line must be 'fabriclab-rlcc-policy 1'", refusal("hello\n"));
        assertEquals("p.policy:1: version 2 is not supported; this build reads version 1", refusal("fabriclab-rlcc-policy 2\ntree\n0 leaf 1\n"));
        assertEquals("p.policy: empty; a policy starts with 'fabriclab-rlcc-policy 1'", refusal("\n\n"));
    }

    @Test
    void refusesMalformedLines() {
        assertEquals("p.policy:2: expected 'tree' before any node", refusal("fabriclab-rlcc-policy 1\n0 leaf 1\n"));
        assertEquals("p.policy:3: malformed node; expected 'N leaf VALUE' or 'N split FEATURE THRESHOLD LEFT RIGHT'",
                refusal("fabriclab-rlcc-policy 1\ntree\n0 leaf\n"));
        assertEquals("p.policy:3: leaf value 'x' is not a number", refusal("fabriclab-rlcc-policy 1\ntree\n0 leaf x\n"));
        assertEquals("p.policy:3: node number 'a' is not an integer", refusal("fabriclab-rlcc-policy 1\ntree\na leaf 1\n"));
        assertEquals("p.policy:4: node 0 of tree 0 is defined twice", refusal("fabriclab-rlcc-policy 1\ntree\n0 leaf 1\n0 leaf 2\n"));
        assertEquals("p.policy:1: the policy has no trees", refusal("fabriclab-rlcc-policy 1\n"));
    }

    @Test
    void refusesUnknownFeatureAndNaNThreshold() {
        assertEquals("p.policy:3: unknown feature 'queue_depth'; the features are rtt_ratio, rtt_ratio_prev, rtt_trend, rate_frac, ack_rate_frac",
                refusal("fabriclab-rlcc-policy 1\ntree\n0 split queue_depth 1 1 2\n1 leaf 0\n2 leaf 0\n"));
        assertEquals("p.policy:3: threshold NaN is not finite", refusal("fabriclab-rlcc-policy 1\ntree\n0 split rtt_ratio NaN 1 2\n1 leaf 0\n2 leaf 0\n"));
    }

    @Test
    void refusesMissingNodesCyclesAndUnreachableNodes() {
        assertEquals("p.policy:3: node 0 refers to node 5, missing from tree 0 (0..2)",
                refusal("fabriclab-rlcc-policy 1\ntree\n0 split rtt_ratio 1 1 5\n1 leaf 0\n2 leaf 0\n"));
        assertEquals("p.policy:4: node 1 leads to node 0, already reached: a cycle or a shared node, not a tree",
                refusal("fabriclab-rlcc-policy 1\ntree\n0 split rtt_ratio 1 1 2\n1 split rtt_ratio 2 0 2\n2 leaf 0\n"));
        assertEquals("p.policy:4: node 1 is not reachable from its tree's root (node 0)",
                refusal("fabriclab-rlcc-policy 1\ntree\n0 leaf 1\n1 leaf 0\n"));
    }

    @Test
    void refusesAPolicyOverTheOperationBudget() {
        StringBuilder ok = new StringBuilder("fabriclab-rlcc-policy 1\n");
        // 75 trees of one comparison: 75 comparisons + 75 additions = 150, the budget exactly
        for (int t = 0; t < 75; t++) {
            ok.append("tree\n0 split rtt_ratio 1 1 2\n1 leaf 0.1\n2 leaf -0.1\n");
        }
        assertEquals(150, RlCcPolicy.parse("p.policy", ok.toString()).cost());
        String over = ok + "tree\n0 leaf 0\n";
        assertEquals("p.policy: a decision costs up to 151 operations (comparisons on each tree's deepest path plus one addition per tree),"
                + " more than the budget of 150", refusal(over));
    }

    /** A flow at the line rate, its RTT at or below its base; the other features anything. */
    private static double[] atLineRate(SplittableRandom r) {
        double ratio = r.nextDouble() < 0.1 ? 1 : r.nextDouble(1e-3, 1);
        double prev = r.nextDouble() < 0.1 ? r.nextDouble(1e-3, 0.1) : r.nextDouble(0.05, 20);
        return new double[] {ratio, prev, ratio - prev, 1, r.nextDouble() < 0.1 ? 0 : r.nextDouble(0, 3)};
    }

    @Test
    void theLineRateCheckIsHandComputedAndBoundsEveryAnswerThere() {
        // TINY at the line rate and base RTT: tree 0 goes left (rtt_ratio < 1.5): 0.05; tree 1 either way: at least -0.02
        RlCcPolicy tiny = RlCcPolicy.parse("tiny.policy", TINY);
        assertEquals(0.05 - 0.02, tiny.leastAtLineRateAndBaseRtt(), 1e-12);
        assertTrue(tiny.keepsTheLineRateAtBaseRtt(), "0.03 or more wherever a line-rate flow's RTT is at its base");
        RlCcPolicy cuts = RlCcPolicy.parse("cuts.policy", """
                fabriclab-rlcc-policy 1
                tree
                0 split rate_frac 1 1 2
                1 leaf -0.5
                2 split ack_rate_frac 2.5 3 4
                3 leaf 0.1
                4 leaf -0.001
                """);
        assertEquals(-0.001, cuts.leastAtLineRateAndBaseRtt(), 1e-12, "rate_frac 1 goes right; a fast ACK rate reaches -0.001");
        assertFalse(cuts.keepsTheLineRateAtBaseRtt());
        assertEquals(-0.001, cuts.decide(new double[] {1, 1, 0, 1, 3}), 1e-12, "where it cuts");
        RlCcPolicy ignoresRate = RlCcPolicy.parse("r.policy", "fabriclab-rlcc-policy 1\ntree\n0 split rtt_ratio 1 1 2\n1 leaf 0\n2 leaf -1\n");
        assertEquals(-1.0, ignoresRate.leastAtLineRateAndBaseRtt(), "rtt_ratio 1 itself is at the base, and goes right");
        // a bound: no point of the region answers less, for these and the shipped policy
        SplittableRandom r = new SplittableRandom(19);
        for (RlCcPolicy p : new RlCcPolicy[] {tiny, cuts, ignoresRate, RlCcPolicy.shipped()}) {
            for (int k = 0; k < 20_000; k++) {
                double[] x = atLineRate(r);
                assertTrue(p.decide(x) >= p.leastAtLineRateAndBaseRtt(), p + " at " + Arrays.toString(x));
            }
        }
        // the shipped policy cuts some such flows (docs/benchmarks.md: -0.028 at rtt_ratio 0.9 after 0.05), so RL-CC asks it every time
        RlCcPolicy shipped = RlCcPolicy.shipped();
        assertTrue(shipped.decide(new double[] {0.9, 0.05, 0.85, 1, 0.1}) < 0);
        assertFalse(shipped.keepsTheLineRateAtBaseRtt());
    }
}
