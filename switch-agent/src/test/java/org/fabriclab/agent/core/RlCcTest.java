package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RL-CC's runtime: its features by hand, one decision per RTT, the clamps, its direction with the shipped policy, and its settings. */
class RlCcTest {
    private static final double EPS = 1e-9;
    private static final int DST = 5;
    private static final int FRAME = 1_000;

    /** RL-CC deciding by {@code d}, dividing RTTs by the least seen. */
    private static RlCc rlCc(RlCc.Decider d) {
        return (RlCc) new RlCc.Params(d, "test", 0.1, 0, 0, RlCc.Params.ACKS).create(100);
    }

    @Test
    void decidesOncePerRttOnTheFeaturesOfThePeriod() {
        List<double[]> seen = new ArrayList<>();
        RlCc cc = rlCc(x -> {
            seen.add(x.clone());
            return -0.5;
        });
        assertEquals(Long.MIN_VALUE, cc.sendAt(DST, 0), "a new flow may send at once");
        cc.sent(DST, FRAME, 0);
        assertEquals(80, cc.sendAt(DST, 0), "paced at the line rate: 1,000 bytes in 80 ns");
        cc.acked(DST, 1_000, 1_000); // the first ACK opens the first period
        assertEquals(0, cc.decisions());
        cc.acked(DST, 1_500, 2_000); // 1,000 ns into the period, shorter than this RTT of 1,500: no decision
        assertEquals(0, cc.decisions());
        cc.acked(DST, 2_000, 3_000); // 2,000 ns: one RTT of 2,000
        assertEquals(1, cc.decisions());
        // rtt_ratio 2,000 / 1,000; prev 1 (the first decision); trend 1; rate 100/100; two ACKs of 1,000 bytes over 2,000 ns: 8 Gb/s
        assertArrayEquals(new double[] {2, 1, 1, 1, 16_000.0 / 2_000 / 100}, seen.get(0), EPS);
        assertEquals(50, cc.rateGbps(DST, 3_000), EPS, "rate * (1 + a)");
        assertEquals(1_000, cc.baseRttNs(DST));
        cc.sent(DST, FRAME, 3_000);
        assertEquals(3_000 + 160, cc.sendAt(DST, 3_000), "paced at the new rate");
        cc.acked(DST, 1_000, 5_000);
        assertArrayEquals(new double[] {1, 2, -1, 0.5, 8_000.0 / 2_000 / 100}, seen.get(1), EPS);
    }

    /** With coalesced ACKs, ack_rate_frac counts the packets acknowledged, not the ACKs. */
    @Test
    void theAckRateCountsPacketsAcknowledged() {
        List<double[]> seen = new ArrayList<>();
        RlCc cc = rlCc(x -> {
            seen.add(x.clone());
            return 0;
        });
        cc.sent(DST, FRAME, 0);
        cc.acked(DST, 1_000, 0, 4, 1_000); // opens the period
        cc.acked(DST, 1_000, 0, 4, 1_500);
        cc.acked(DST, 1_000, 0, 3, 2_000); // 1,000 ns: one RTT
        assertEquals(1, cc.decisions());
        assertEquals(7.0 * FRAME * 8 / 1_000 / 100, seen.get(0)[RlCcPolicy.ACK_RATE_FRAC], EPS, "seven packets of 1,000 bytes in 1 us");
    }

    @Test
    void rateStaysWithinTheMinimumAndTheLine() {
        RlCc down = rlCc(x -> -5);
        RlCc up = rlCc(x -> 5);
        for (RlCc cc : List.of(down, up)) {
            cc.sent(DST, FRAME, 0);
            for (long t = 1; t <= 10; t++) {
                cc.acked(DST, 1_000, t * 1_000);
            }
        }
        assertEquals(0.1, down.rateGbps(DST, 10_000), EPS, "never below min_rate_gbps");
        assertEquals(100, up.rateGbps(DST, 10_000), EPS, "never above the line");
        assertEquals(100, down.rateGbps(99, 0), EPS, "the line rate for a flow not seen yet");
    }

    /** The shipped policy, fed RTTs that rise step by step at a steady rate: its rate falls as the queue grows, and rises when it drains. */
    @Test
    void theShippedPolicyCutsAsTheRttRisesAndRaisesAsItFalls() {
        RlCc cc = (RlCc) RlCc.Params.defaults().create(100); // a base RTT of 500 ns
        cc.sent(DST, FRAME, 0);
        long t = 0;
        cc.acked(DST, 500, t += 500);
        double before = cc.rateGbps(DST, t);
        for (int k = 1; k <= 8; k++) {
            cc.sent(DST, FRAME, t);
            cc.acked(DST, 500L * (1 + k), t += 500L * (1 + k));
        }
        double congested = cc.rateGbps(DST, t);
        assertTrue(congested < before / 2, "RTT up to 9 times its base: the rate falls from " + before + " to " + congested);
        for (int k = 0; k < 20; k++) {
            cc.sent(DST, FRAME, t);
            cc.acked(DST, 500, t += 500);
        }
        assertTrue(cc.rateGbps(DST, t) > congested, "the queue gone: the rate climbs back from " + congested + " to " + cc.rateGbps(DST, t));
    }

    @Test
    void settingsReadAPolicyFileAndRefuseWhatIsNot(@TempDir Path dir) throws Exception {
        RlCc.Params d = (RlCc.Params) CongestionControl.settings("rl-cc", Map.of());
        assertEquals(RlCc.Params.defaults(), d, "the table round-trips the defaults");
        assertEquals(Map.of("policy", "default", "min_rate_gbps", 0.1, "period_us", 0.0, "base_rtt_us", 0.5,
                "ack_every", (double) RlCc.Params.ACKS.every(), "ack_delay_us", RlCc.Params.ACKS.delayNs() / 1e3), d.values());
        Path file = dir.resolve("p.policy");
        Files.writeString(file, "fabriclab-rlcc-policy 1\ntree\n0 leaf -0.25\n");
        RlCc.Params p = (RlCc.Params) CongestionControl.settings("rl-cc", Map.of("policy", file.toString(), "min_rate_gbps", "1",
                "period_us", "2", "base_rtt_us", "0"));
        assertEquals(-0.25, p.policy().decide(new double[5]));
        assertEquals(file.toString(), p.values().get("policy"));
        assertEquals(1.0, p.minRateGbps());
        assertEquals(2_000, p.periodNs());
        assertEquals(0, p.baseRttNs());
        Files.writeString(file, "fabriclab-rlcc-policy 1\ntree\n0 split speed 1 1 2\n1 leaf 0\n2 leaf 1\n");
        assertEquals("--cc-param policy: " + file + ":3: unknown feature 'speed'; the features are rtt_ratio, rtt_ratio_prev, rtt_trend, "
                + "rate_frac, ack_rate_frac", refusal(Map.of("policy", file.toString())));
        assertEquals("--cc-param policy: " + dir.resolve("none") + ": no such file", refusal(Map.of("policy", dir.resolve("none").toString())));
        assertTrue(refusal(Map.of("target_us", "4")).contains("rl-cc has no such parameter; it has policy, min_rate_gbps, period_us, base_rtt_us"));
        assertEquals("--cc-param min_rate_gbps=x: not a number", refusal(Map.of("min_rate_gbps", "x")));
        assertTrue(refusal(Map.of("min_rate_gbps", "0")).contains("min_rate_gbps above 0"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("none", Map.of("policy", "p")))
                .getMessage().contains("--cc dcqcn, swift, rl-cc or ack-only"));
    }

    private static String refusal(Map<String, String> params) {
        return assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("rl-cc", params)).getMessage();
    }
}
