package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** RL-CC's policy file: a hand-computed decision, the cost count, and every refusal with its file, line and reason. */
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
}
