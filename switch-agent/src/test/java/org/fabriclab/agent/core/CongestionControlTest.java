package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ECN marking, DCQCN and Swift on hand-computed examples; the settings' refusals. */
class CongestionControlTest {
    private static final double EPS = 1e-9;
    private static final int DST = 7;
    private static final int SRC = 3;

    @Test
    void ecnMarkingReadsBackWhatItWrites() {
        assertEquals(EcnMarking.DCQCN, EcnMarking.parse(EcnMarking.DCQCN.spec()), "a switch process's --ecn, as the emulator writes it");
        assertEquals(new EcnMarking(0, 1, 1), EcnMarking.parse(" 0: 1 :1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> EcnMarking.parse("5000:200000")).getMessage()
                .startsWith("is not KMIN:KMAX:PMAX"));
    }

    @Test
    void ecnMarksByDcqcnsRedLikeRule() {
        EcnMarking m = EcnMarking.DCQCN; // 5 KB, 200 KB, 1%
        assertEquals(0, m.probability(0));
        assertEquals(0, m.probability(5_000), "at kmin: not yet");
        assertEquals(0.01 * 1 / 195_000, m.probability(5_001), EPS);
        assertEquals(0.005, m.probability(102_500), EPS, "half way: half of pmax");
        assertEquals(0.01, m.probability(200_000), EPS, "at kmax: pmax");
        assertEquals(1, m.probability(200_001), "above kmax: every packet");
        assertThrows(IllegalArgumentException.class, () -> new EcnMarking(10, 10, 0.1));
        assertThrows(IllegalArgumentException.class, () -> new EcnMarking(0, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> new EcnMarking(0, 10, 1.5));
    }

    private static Dcqcn dcqcn(double g) {
        Dcqcn.Params d = Dcqcn.Params.DEFAULTS;
        return (Dcqcn) new Dcqcn.Params(d.marking(), g, d.alphaPeriodNs(), d.cnpIntervalNs(), d.timerNs(), d.byteCounter(),
                d.fastRecovery(), d.raiGbps(), d.rhaiGbps(), d.minRateGbps()).create(100);
    }

    @Test
    void dcqcnCutsByAlphaAndRecoversFastThenAdditively() {
        Dcqcn cc = dcqcn(1.0 / 16);
        assertEquals(0, cc.sendAt(DST, 0), "a new flow may send at once");
        cc.sent(DST, 1_000, 0);
        assertEquals(0, cc.sendAt(DST, 0), "never cut: at the line rate, paced by its link alone");
        long t0 = 1_000;
        cc.notified(DST, t0);
        assertEquals(50, cc.rateGbps(DST, t0), EPS, "Rc * (1 - alpha / 2), alpha 1");
        cc.sent(DST, 1_000, t0);
        assertEquals(t0 + 160, cc.sendAt(DST, t0), "cut: paced at 50 Gb/s, 1,000 bytes in 160 ns");
        assertEquals(100, cc.targetGbps(DST), EPS, "Rt = the rate before the cut");
        assertEquals(15.0 / 16 + 1.0 / 16, cc.alpha(DST), EPS);
        // timer T = 55 us: four fast recovery steps, Rc = (Rt + Rc) / 2
        double[] fast = {75, 87.5, 93.75, 96.875};
        for (int i = 0; i < fast.length; i++) {
            assertEquals(fast[i], cc.rateGbps(DST, t0 + (i + 1) * 55_000L), EPS, "fast recovery step " + (i + 1));
        }
        assertEquals(Math.pow(15.0 / 16, 4), cc.alpha(DST), EPS, "alpha decays by 1 - g every K = 55 us without a CNP");
        // the fifth event: additive increase, Rt + R_AI (capped at the line), then the average
        assertEquals((100 + 96.875) / 2, cc.rateGbps(DST, t0 + 5 * 55_000L), EPS);
        // a second cut with the decayed alpha
        long t1 = t0 + 5 * 55_000L;
        double alpha = Math.pow(15.0 / 16, 5);
        assertEquals(alpha, cc.alpha(DST), EPS);
        cc.notified(DST, t1);
        double rc = (100 + 96.875) / 2;
        assertEquals(rc * (1 - alpha / 2), cc.rateGbps(DST, t1), EPS);
        assertEquals(rc, cc.targetGbps(DST), EPS);
        assertEquals(15.0 / 16 * alpha + 1.0 / 16, cc.alpha(DST), EPS);
        assertEquals(2, cc.cuts());
    }

    /**
     * DCQCN reads a flow's state only while it is paced: back at the line rate with nothing to
     * recover, the flow goes by its link alone again; the next CNP paces it from its last alpha.
     */
    @Test
    void dcqcnLeavesARecoveredFlowToItsLinkAndPacesItAgainOnTheNextCnp() {
        Dcqcn cc = dcqcn(1.0 / 16);
        cc.notified(DST, 0);
        cc.sent(DST, 1_000, 0);
        assertEquals(160, cc.sendAt(DST, 0), "cut to 50 Gb/s: paced");
        long later = 100_000_000; // 100 ms: every timer event since has brought the rate back to the line
        assertEquals(100, cc.rateGbps(DST, later), EPS);
        cc.sent(DST, 1_000, later);
        assertEquals(later, cc.sendAt(DST, later), "recovered: the link paces it, no state read");
        cc.sent(DST, 1_000, later);
        assertEquals(later, cc.sendAt(DST, later), "and stays so, packet after packet");
        double alpha = cc.alpha(DST);
        assertTrue(alpha < 1.0 / 16, "alpha decayed while nothing was cut: " + alpha);
        cc.notified(DST, later + 1);
        double rate = 100 * (1 - alpha / 2);
        assertEquals(rate, cc.rateGbps(DST, later + 1), EPS, "cut by the decayed alpha");
        cc.sent(DST, 1_000, later + 1);
        assertEquals(later + 1 + (long) Math.ceil(8_000 / rate), cc.sendAt(DST, later + 1), "paced again");
        assertEquals(2, cc.cuts());
    }

    @Test
    void dcqcnAdditiveIncreaseRaisesTheTargetBelowTheLineRate() {
        Dcqcn cc = dcqcn(1.0 / 256);
        cc.notified(DST, 0); // Rt 100, Rc 50, alpha 1
        cc.notified(DST, 0); // Rt 50, Rc 25 (alpha still 1: (1 - g) + g)
        assertEquals(25, cc.rateGbps(DST, 0), EPS);
        double rc = 25;
        for (int i = 1; i <= 4; i++) {
            rc = (50 + rc) / 2;
            assertEquals(rc, cc.rateGbps(DST, i * 55_000L), EPS, "fast recovery towards Rt 50");
        }
        assertEquals((50.04 + rc) / 2, cc.rateGbps(DST, 5 * 55_000L), EPS, "Rt + R_AI (40 Mb/s), then the average");
        assertEquals(50.04, cc.targetGbps(DST), EPS);
    }

    @Test
    void dcqcnReceiverSendsOneCnpPerFlowPerInterval() {
        Dcqcn cc = dcqcn(1.0 / 256);
        assertEquals(CongestionControl.NO_REPLY, cc.reply(SRC, false, 0), "an unmarked packet: nothing");
        assertEquals(PacketPool.CNP, cc.reply(SRC, true, 0));
        assertEquals(CongestionControl.NO_REPLY, cc.reply(SRC, true, 49_999), "within N = 50 us of the last CNP");
        assertEquals(PacketPool.CNP, cc.reply(SRC + 1, true, 49_999), "another flow has its own interval");
        assertEquals(PacketPool.CNP, cc.reply(SRC, true, 50_000));
    }

    @Test
    void dcqcnNeverCutsBelowItsMinimumRate() {
        Dcqcn cc = dcqcn(1.0 / 256);
        for (int i = 0; i < 100; i++) {
            cc.notified(DST, 0);
        }
        assertEquals(0.1, cc.rateGbps(DST, 0), EPS);
    }

    @Test
    void swiftIncreasesAdditivelyAndDecreasesAtMostOncePerRtt() {
        Swift cc = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 10).create(100);
        assertEquals(0, cc.sendAt(DST, 0));
        cc.sent(DST, 1_000, 0);
        assertEquals(1, cc.inflight(DST));
        cc.acked(DST, 5_000, 100_000);
        assertEquals(10.1, cc.cwnd(DST), EPS, "below the target: cwnd + ai / cwnd");
        assertEquals(0, cc.inflight(DST));
        cc.acked(DST, 20_000, 200_000);
        assertEquals(10.1 * 0.6, cc.cwnd(DST), EPS, "above: cwnd * (1 - beta (d - target) / d) = cwnd * 0.6");
        cc.acked(DST, 20_000, 201_000);
        assertEquals(10.1 * 0.6, cc.cwnd(DST), EPS, "within one RTT of the last decrease: none");
        cc.acked(DST, 60_000, 300_000);
        assertEquals(10.1 * 0.6 * 0.5, cc.cwnd(DST), EPS, "bounded by max_mdf: at most halved");
        assertEquals(0, cc.inflight(DST), "never below 0 (ACKs of packets sent before)");
    }

    @Test
    void swiftWindowLimitsPacketsInFlightAndPacesBelowOnePacket() {
        Swift cc = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 2).create(100);
        cc.sent(DST, 1_000, 0);
        cc.sent(DST, 1_000, 0);
        assertEquals(CongestionControl.WAIT, cc.sendAt(DST, 0), "two in flight, a window of two: wait for an ACK");
        cc.acked(DST, 40_000, 40_000); // * max(1 - 0.8 * 30 / 40, 0.5) = 0.5: one packet
        assertEquals(1, cc.cwnd(DST), EPS);
        cc.acked(DST, 40_000, 80_000); // inflight 0 now; * 0.5 again
        assertEquals(0.5, cc.cwnd(DST), EPS);
        assertEquals(80_000, cc.sendAt(DST, 80_000), "nothing in flight: one may go");
        cc.sent(DST, 1_000, 80_000);
        assertEquals(CongestionControl.WAIT, cc.sendAt(DST, 80_001), "below one packet: one at a time");
        cc.acked(DST, 5_000, 85_000); // below the target: cwnd + ai (below one packet)
        assertEquals(1.5, cc.cwnd(DST), EPS);
        assertEquals(85_000, cc.sendAt(DST, 85_000));
    }

    /**
     * Swift and RL-CC keep a flow's state at its LID: flows first seen in any order, the highest
     * LID first or a live host's highest unicast LID, each keep their own state; a LID below the
     * highest seen but never sent to has none (the answers for a flow not seen yet).
     */
    @Test
    void flowsKeptByLidKeepTheirOwnStateWhateverOrderTheyComeIn() {
        Swift swift = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 10).create(100);
        int[] lids = {0xBFFF, 1, 40, 2};
        for (int k = 0; k < lids.length; k++) {
            for (int i = 0; i <= k; i++) {
                swift.sent(lids[k], 1_000, 0);
            }
        }
        swift.acked(40, 20_000, 100_000); // above the target: cut
        for (int k = 0; k < lids.length; k++) {
            assertEquals(lids[k] == 40 ? k : k + 1, swift.inflight(lids[k]), "LID " + lids[k]);
            assertEquals(lids[k] == 40 ? 6 : 10, swift.cwnd(lids[k]), EPS, "LID " + lids[k]);
        }
        assertEquals(0, swift.inflight(3), "LID 3, never sent to, has no flow");
        assertEquals(10, swift.cwnd(3), EPS);
        assertEquals(100, swift.rateGbps(3, 0), EPS, "a flow not seen yet: the line rate");
        RlCc rl = (RlCc) RlCc.Params.defaults().create(100);
        rl.sent(0xBFFF, 1_000, 0);
        assertEquals(80, rl.sendAt(0xBFFF, 0), "paced at the line rate: 1,000 bytes take 80 ns");
        assertEquals(Long.MIN_VALUE, rl.sendAt(5, 0), "a new flow may send at once");
        assertEquals(Long.MAX_VALUE, rl.baseRttNs(6), "no flow to LID 6");
    }

    /** Swift's paper's Algorithm 1 with coalesced ACKs: the increase is ai * num_acked / cwnd (ai * num_acked below one packet). */
    @Test
    void swiftScalesItsIncreaseByThePacketsAnAckAcknowledges() {
        Swift cc = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 10).create(100);
        for (int i = 0; i < 8; i++) {
            cc.sent(DST, 1_000, 0);
        }
        cc.acked(DST, 5_000, 0, 4, 100_000);
        assertEquals(10.4, cc.cwnd(DST), EPS, "10 + 1 * 4 / 10");
        assertEquals(4, cc.inflight(DST), "four of eight acknowledged");
        cc.acked(DST, 5_000, 0, 4, 101_000);
        assertEquals(10.4 + 4 / 10.4, cc.cwnd(DST), EPS, "10.4 + 1 * 4 / 10.4");
        assertEquals(0, cc.inflight(DST));
        double w = cc.cwnd(DST);
        cc.sent(DST, 1_000, 102_000);
        cc.acked(DST, 20_000, 0, 3, 200_000);
        assertEquals(w * 0.6, cc.cwnd(DST), EPS, "the decrease is per RTT, whatever the ACK acknowledges");
        assertEquals(0, cc.inflight(DST), "never below 0");
        Swift small = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 0.25).create(100);
        small.sent(DST, 1_000, 0);
        small.acked(DST, 5_000, 0, 2, 10_000);
        assertEquals(0.25 + 2, small.cwnd(DST), EPS, "below one packet: cwnd + ai * 2");
    }

    /** A NIC with congestion control that records what it transmits and the wake-ups it asks for. */
    private static HostCore recordingNic(PacketPool pool, CongestionControl cc, List<Integer> transmitted, List<Long> wakes) {
        return new HostCore(1, 8, new PortCounterArray(1), pool, new HostCore.Output() {
            @Override
            public void transmit(int vl, int h, long now) {
                transmitted.add(h);
            }

            @Override
            public void returnCredit(int vl, int blocks, long now) {
            }

            @Override
            public void delivered(int h, long now) {
                pool.release(h);
            }

            @Override
            public void controlMade(int h, long now) {
                pool.vl(h, 0);
            }

            @Override
            public void controlConsumed(int h, long now) {
                pool.release(h);
            }

            @Override
            public void wakeAt(long at) {
                wakes.add(at);
            }
        }, cc);
    }

    /** A data packet from {@code slid} to {@code dlid}, its NIC send time {@code sent}, arriving at {@code nic} at {@code now}. */
    private static void arrive(HostCore nic, PacketPool pool, int slid, int dlid, int flow, long sent, long now) {
        int h = pool.allocate();
        pool.vl(h, 0);
        pool.bytes(h, 1_000);
        pool.slid(h, slid);
        pool.dlid(h, dlid);
        pool.flow(h, flow);
        pool.sent(h, sent);
        pool.cc(h, PacketPool.ECT);
        nic.packetArrived(h, now);
    }

    /**
     * ack_every=4 at the receiver: the fourth packet of a source gets an ACK for four, echoing its
     * send time; the two after it wait for the timer their first pending packet started (1 us
     * after the first of the run, which still ran), whose ACK acknowledges two and echoes the
     * newest's send time plus the time it was held. The sender's Swift takes both and has nothing
     * in flight after them.
     */
    @Test
    void aReceiverAcknowledgesEveryNthPacketAndTheRestWhenItsTimerExpires() {
        PacketPool pool = new PacketPool(32);
        List<Integer> out = new ArrayList<>();
        List<Long> wakes = new ArrayList<>();
        Swift.Params p = (Swift.Params) CongestionControl.settings("swift", Map.of("ack_every", "4", "ack_delay_us", "1"));
        HostCore receiver = recordingNic(pool, p.create(100), out, wakes);
        receiver.portActive(8, 0);
        for (int i = 1; i <= 4; i++) {
            arrive(receiver, pool, SRC, DST, i, 100L * i, 1_000 + 100L * i);
        }
        assertEquals(1, out.size(), "one ACK for four packets");
        int ack = out.get(0);
        assertEquals(PacketPool.ACK, pool.kind(ack));
        assertEquals(SRC, pool.dlid(ack));
        assertEquals(DST, pool.slid(ack));
        assertEquals(4, pool.seq(ack), "it acknowledges four");
        assertEquals(400, pool.timestamp(ack), "the fourth's send time");
        assertEquals(List.of(1_100L + 1_000), wakes, "the first packet's timer: 1 us after it arrived");
        arrive(receiver, pool, SRC, DST, 5, 500, 1_500);
        arrive(receiver, pool, SRC, DST, 6, 600, 1_600);
        assertEquals(2, receiver.ackPending(SRC));
        assertEquals(1, out.size(), "the timer runs still: no new one, no ACK yet");
        receiver.linkFree(1_700);
        receiver.wake(2_100);
        receiver.linkFree(2_200);
        assertEquals(2, out.size(), "the timer's ACK");
        int tail = out.get(1);
        assertEquals(2, pool.seq(tail), "it acknowledges the two left");
        assertEquals(600 + (2_100 - 1_600), pool.timestamp(tail), "the sixth's send time and the 500 ns it was held");
        assertEquals(0, receiver.ackPending(SRC));
        assertEquals(1, wakes.size(), "nothing pending: no timer");

        Swift sender = (Swift) p.create(100);
        for (int i = 0; i < 6; i++) {
            sender.sent(DST, 1_000, 0);
        }
        for (int h : out) {
            sender.acked(DST, 2_000, 0, pool.seq(h), 3_000);
        }
        assertEquals(0, sender.inflight(DST), "the sender's window saw all six acknowledged");
    }

    @Test
    void ackCoalescingRefusesWhatIsNotACountOrATime() {
        assertEquals(new CongestionControl.Acks(8, 2_500),
                ((Swift.Params) CongestionControl.settings("swift", Map.of("ack_every", "8", "ack_delay_us", "2.5"))).acks());
        assertEquals(4, ((RlCc.Params) CongestionControl.settings("rl-cc", Map.of("ack_every", "4"))).acks().every());
        for (String bad : List.of("0", "2.5", "65", "-1")) {
            String m = assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("swift", Map.of("ack_every", bad)))
                    .getMessage();
            assertEquals("--cc-param ack_every=" + bad + ": a whole number of packets from 1 to 64 is needed", m);
        }
        for (String bad : List.of("0", "-1", "1001", "0.0001")) {
            String m = assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("rl-cc", Map.of("ack_delay_us", bad)))
                    .getMessage();
            assertTrue(m.startsWith("--cc-param ack_delay_us=" + bad + ": "), m);
        }
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("dcqcn", Map.of("ack_every", "2")),
                "DCQCN sends no ACKs");
    }

    @Test
    void aFlowHeldByItsWindowHoldsBackOnlyItsOwnPackets() {
        PacketPool pool = new PacketPool(16);
        List<Integer> handles = new ArrayList<>();
        List<Integer> sent = new ArrayList<>();
        Swift cc = (Swift) new Swift.Params(10_000, 1, 0.8, 0.5, 0.001, 256, 1).create(100);
        HostCore nic = recordingNic(pool, cc, handles, new ArrayList<>());
        nic.portActive(8, 0);
        int[][] queued = {{DST, 1}, {DST, 2}, {SRC, 1}, {DST, 3}, {SRC, 2}};
        for (int[] q : queued) {
            int h = pool.allocate();
            pool.vl(h, 0);
            pool.bytes(h, 1_000);
            pool.dlid(h, q[0]);
            pool.seq(h, q[1]);
            nic.offer(h, 0);
        }
        nic.linkFree(80);
        nic.linkFree(160);
        nic.linkFree(240);
        handles.forEach(h -> sent.add(pool.dlid(h) * 10 + pool.seq(h)));
        assertEquals(List.of(DST * 10 + 1, SRC * 10 + 1), sent,
                "a window of one: the flow to 7 waits for its ACK, the flow to 3 behind it goes, then waits too");
        int ack = pool.allocate();
        pool.vl(ack, 0);
        pool.cc(ack, PacketPool.ACK);
        pool.slid(ack, DST);
        pool.seq(ack, 1); // one packet acknowledged
        pool.timestamp(ack, 0);
        nic.packetArrived(ack, 1_000);
        sent.add(pool.dlid(handles.get(2)) * 10 + pool.seq(handles.get(2)));
        assertEquals(List.of(DST * 10 + 1, SRC * 10 + 1, DST * 10 + 2), sent, "each flow's packets in their order");
    }

    @Test
    void swiftsFlowScalingRaisesTheTargetForSmallWindows() {
        Swift.Params d = Swift.Params.DEFAULTS;
        Swift off = (Swift) d.create(100);
        assertEquals(4_000, off.target(0.01), EPS, "off by default: one target");
        Swift cc = (Swift) new Swift.Params(4_000, 1, 0.8, 0.5, 0.001, 256, 16, 10_000, 0.1, 100).create(100);
        double a = 10_000 / (1 / Math.sqrt(0.1) - 1 / Math.sqrt(100));
        assertEquals(4_000, cc.target(100), EPS, "none from fs_max_cwnd");
        assertEquals(4_000, cc.target(200), EPS);
        assertEquals(14_000, cc.target(0.1), EPS, "the whole range at fs_min_cwnd");
        assertEquals(14_000, cc.target(0.01), EPS, "and no more below it");
        assertEquals(4_000 + a - a / 10, cc.target(1), EPS, "a / sqrt(1) + b, b = -a / sqrt(100)");
        cc.sent(DST, 1_000, 0);
        cc.acked(DST, 4_400, 1_000); // above the base target, below the scaled one for a window of 16 (4,490 ns)
        assertEquals(16 + 1.0 / 16, cc.cwnd(DST), EPS, "a small window's target is higher: still increasing");
    }

    /** Swift's topology-based scaling: the target grows by hop_scale_us per switch the ACK crossed. */
    @Test
    void swiftsHopScalingRaisesTheTargetPerSwitch() {
        Swift cc = (Swift) CongestionControl.settings("swift", Map.of("target_us", "4", "hop_scale_us", "1", "init_cwnd", "10"))
                .create(100);
        cc.sent(DST, 1_000, 0);
        cc.acked(DST, 6_500, 3, 10_000); // three switches: a target of 7 us
        assertEquals(10.1, cc.cwnd(DST), EPS, "below 4 + 3 x 1 us: increase");
        cc.acked(DST, 6_500, 1, 20_000); // one switch: 5 us
        assertEquals(10.1 * (1 - 0.8 * 1_500 / 6_500.0), cc.cwnd(DST), EPS, "above 4 + 1 us: decrease");
        assertEquals(1.0, CongestionControl.settings("swift", Map.of("hop_scale_us", "1")).values().get("hop_scale_us"));
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("swift", Map.of("hop_scale_us", "-1")));
    }

    @Test
    void settingsTakeOverridesByNameAndRefuseWhatIsNot() {
        assertNull(CongestionControl.settings("none", Map.of()));
        Dcqcn.Params d = (Dcqcn.Params) CongestionControl.settings("dcqcn", Map.of("kmin_bytes", "1000", "timer_us", "100"));
        assertEquals(1_000, d.marking().kminBytes());
        assertEquals(100_000, d.timerNs());
        assertEquals(Dcqcn.Params.DEFAULTS.g(), d.g(), "the rest as the defaults");
        assertEquals(Dcqcn.Params.DEFAULTS, CongestionControl.settings("dcqcn", Map.of()), "the table round-trips the defaults");
        assertEquals(Swift.Params.DEFAULTS, CongestionControl.settings("swift", Map.of()));
        String bad = assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("cubic", Map.of())).getMessage();
        assertTrue(bad.contains("none, dcqcn, swift"), bad);
        String param = assertThrows(IllegalArgumentException.class,
                () -> CongestionControl.settings("swift", Map.of("kmin_bytes", "1"))).getMessage();
        assertTrue(param.contains("target_us"), param);
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("swift", Map.of("beta", "x")));
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("swift", Map.of("beta", "2")));
        assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("none", Map.of("g", "0.1")));
    }

    @Test
    void ackOnlyAcknowledgesEveryPacketAndHoldsNothingBack() {
        assertEquals(AckOnly.Params.DEFAULTS, CongestionControl.settings("ack-only", Map.of()), "the table round-trips the defaults");
        AckOnly.Params p = (AckOnly.Params) CongestionControl.settings("ack-only", Map.of("ack_every", "4", "ack_delay_us", "2"));
        assertEquals(new CongestionControl.Acks(4, 2_000), p.acks());
        CongestionControl cc = CongestionControl.settings("ack-only", Map.of()).create(100);
        for (int i = 0; i < 1_000; i++) { // far past any window: nothing waits for the ACKs
            assertEquals(i, cc.sendAt(DST, i), "packet " + i + " goes at once");
            cc.sent(DST, 4_096, i);
        }
        assertEquals(PacketPool.ACK, cc.reply(DST, false, 0), "an ACK per packet");
        assertEquals(PacketPool.ACK, cc.reply(DST, true, 0), "an ACK for a marked one too, no CNP");
        cc.acked(DST, 50_000, 1_000);
        assertEquals(0, cc.sendAt(DST, 0), "a long RTT slows nothing");
        assertEquals(100, cc.rateGbps(DST, 2_000), "always the line rate");
        String m = assertThrows(IllegalArgumentException.class, () -> CongestionControl.settings("ack-only", Map.of("target_us", "4")))
                .getMessage();
        assertTrue(m.contains("ack-only has no such parameter; it has ack_every, ack_delay_us"), m);
    }

    @Test
    void packetPoolsCongestionBitsLeaveEveryOtherFieldAlone() {
        PacketPool pool = new PacketPool(2);
        int h = pool.allocate();
        pool.sl(h, 0xAB);
        pool.vl(h, 0xCD);
        pool.hops(h, 0xEF);
        pool.cc(h, PacketPool.CNP | PacketPool.CE | PacketPool.ECT);
        assertEquals(0xAB, pool.sl(h));
        assertEquals(0xCD, pool.vl(h));
        assertEquals(0xEF, pool.hops(h));
        assertEquals(PacketPool.CNP, pool.kind(h));
        pool.hops(h, pool.hops(h) + 1);
        assertEquals(0xF0, pool.hops(h));
        assertEquals(PacketPool.CNP | PacketPool.CE | PacketPool.ECT, pool.cc(h), "hops' writes keep bits 28-31");
        pool.sl(h, 1);
        pool.vl(h, 2);
        assertEquals(PacketPool.CNP | PacketPool.CE | PacketPool.ECT, pool.cc(h));
        pool.cc(h, 0);
        assertEquals(0xF0, pool.hops(h));
        assertEquals(1, pool.sl(h));
        assertEquals(2, pool.vl(h));
        pool.cc(h, PacketPool.ACK);
        pool.release(h);
        assertEquals(0, pool.cc(pool.allocate()), "a handle comes back as a plain data packet");
    }
}
