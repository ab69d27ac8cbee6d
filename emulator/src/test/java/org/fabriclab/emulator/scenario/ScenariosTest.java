package org.fabriclab.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.routing.analysis.Fairness;
import org.junit.jupiter.api.Test;

/**
 * The adaptive-routing paper's findings, as our simulator reproduces them (docs/reproductions.md).
 * The same scenarios run live against the clock are {@link LiveScenariosIT}'s.
 */
class ScenariosTest {
    static List<Double> shares(Scenarios.Result r, int phase) {
        return r.phases().get(phase).flows().stream().map(Scenarios.FlowResult::share).toList();
    }

    private static void near(double expected, double actual, String what) {
        assertEquals(expected, actual, 0.05, what);
    }

    @Test
    void c1s2DeterministicRoutingSplitsTwoToOneToOneAndAdaptiveRoutingInThirds() throws Exception {
        Scenarios.Scenario s = Scenarios.byName("ib-ar-c1-s2");
        List<Double> dr = shares(Scenarios.simulate(s, false, 200, 100_000, 1), 0).stream().sorted().toList();
        near(0.5, dr.get(0), "DR: two flows share one link");
        near(0.5, dr.get(1), "DR: two flows share one link");
        near(1.0, dr.get(2), "DR: one flow alone on the other");
        for (double x : shares(Scenarios.simulate(s, true, 200, 100_000, 1), 0)) {
            near(2.0 / 3, x, "AR: 400 Gbps of inter-switch links in thirds");
        }
    }

    /**
     * The report's per-port view of the parking lot (C2 S3, DR, three senders): node 4's leaf
     * splits its output to 4 evenly between its two inputs, the local sender 5 and the uplink
     * carrying the two remote flows (input fairness 1, flow fairness not).
     */
    @Test
    void theReportGivesEachCongestedOutputsInputShares() throws Exception {
        Scenarios.PhaseResult p = Scenarios.simulate(Scenarios.byName("ib-ar-c2-s3"), false, 200, 100_000, 1).phases().get(1);
        var toHotSpot = p.congestedPorts().stream().filter(o -> o.to().equals("4")).findFirst()
                .orElseThrow(() -> new AssertionError("node 4's link is congested: " + p.congestedPorts()));
        assertEquals(2, toHotSpot.inputs().size(), toHotSpot.toString());
        assertTrue(toHotSpot.inputs().stream().anyMatch(in -> in.from().equals("5")), toHotSpot.toString());
        for (var in : toHotSpot.inputs()) {
            near(0.5, in.share(), "round robin over inputs: " + in);
        }
        near(1.0, toHotSpot.jainIndex(), "the inputs are treated fairly");
        assertTrue(toHotSpot.utilisation() > 0.95, toHotSpot.toString());
        assertTrue(p.jainIndex() < 0.9, "the flows are not: " + p.jainIndex());
        // a flow alone at line rate is not congestion: the uplinks each carry one remote flow
        assertTrue(p.congestedPorts().stream().allMatch(o -> o.inputs().size() > 1 || o.utilisation() < 0.9), p.congestedPorts().toString());
    }

    @Test
    void c2s3ParkingLotUnderDrAndItsReverseUnderAr() throws Exception {
        Scenarios.Scenario s = Scenarios.byName("ib-ar-c2-s3");
        Scenarios.Result dr = Scenarios.simulate(s, false, 200, 100_000, 1);
        // the local sender (5) keeps half of node 4's link; the remote ones share the other half
        near(0.5, shares(dr, 0).get(0), "DR phase 1, local");
        near(0.25, shares(dr, 1).get(1), "DR phase 2, a remote sender");
        near(1.0 / 6, shares(dr, 2).get(3), "DR phase 3, a remote sender");
        Scenarios.Result ar = Scenarios.simulate(s, true, 200, 100_000, 1);
        // one remote flow over two root switches enters leaf 7 by two ports: 2/3 against the local 1/3
        near(1.0 / 3, shares(ar, 0).get(0), "AR phase 1, local");
        near(2.0 / 3, shares(ar, 0).get(1), "AR phase 1, remote");
        for (double x : shares(ar, 1)) {
            near(1.0 / 3, x, "AR phase 2, thirds");
        }
        assertTrue(shares(ar, 2).get(0) > shares(ar, 2).get(1), "AR phase 3: the parking lot again");
        assertEquals(1.0, ar.phases().get(1).jainIndex(), 0.01);
    }

    @Test
    void c2s5TheVictimLosesUnderArOnly() throws Exception {
        Scenarios.Scenario s = Scenarios.byName("ib-ar-c2-s5");
        near(1.0, shares(Scenarios.simulate(s, false, 200, 100_000, 1), 1).get(2), "DR: the victim has its own uplink");
        near(0.5, shares(Scenarios.simulate(s, true, 200, 100_000, 1), 1).get(2), "AR: congestion spreads onto its uplink");
    }

    /**
     * Issue 19's question, does congestion control undo what AR does wrong? In S5 yes: with DCQCN the
     * hot spot's senders are cut to its rate at their NICs, so their packets no longer fill the
     * uplink AR spread them onto, and the victim gets its link back; in S3 it evens the parking lot
     * out under DR (phases of 2 ms: DCQCN needs milliseconds).
     */
    @Test
    void dcqcnFreesS5sVictimUnderArAndEvensS3sParkingLot() throws Exception {
        CongestionControl.Settings dcqcn = CongestionControl.settings("dcqcn", java.util.Map.of());
        Scenarios.Result ar = Scenarios.simulate(Scenarios.byName("ib-ar-c2-s5"), true, 200, 2_000_000, 1, dcqcn);
        assertTrue(shares(ar, 1).get(2) > 0.9, "AR with DCQCN: the victim keeps its link, not half: " + shares(ar, 1));
        Scenarios.Result dr = Scenarios.simulate(Scenarios.byName("ib-ar-c2-s3"), false, 200, 2_000_000, 1, dcqcn);
        assertTrue(dr.phases().get(2).jainIndex() > 0.85, "DR with DCQCN: nearer fair than the parking lot's 0.75: "
                + dr.phases().get(2).jainIndex());
        assertTrue(shares(dr, 2).get(0) < 0.45, "the local sender no longer keeps half: " + shares(dr, 2));
    }

    @Test
    void thePlotIsSvgWithALinePerFlow() throws Exception {
        Scenarios.Result r = Scenarios.simulate(Scenarios.byName("ib-ar-c2-s3"), true, 200, 50_000, 1);
        String svg = ThroughputPlot.svg(r);
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", doc.getDocumentElement().getTagName());
        assertEquals(4, doc.getElementsByTagName("polyline").getLength(), "four senders");
        assertEquals(100, r.series()[0].length);
        assertTrue(svg.contains("5 &gt; 4"));
    }

    @Test
    void fairnessMetrics() {
        assertEquals(1.0, Fairness.jain(new double[] {5, 5, 5}), 1e-12);
        assertEquals(16.0 / 18, Fairness.jain(new double[] {2, 1, 1}), 1e-12);
        assertEquals(0.0, Fairness.coefficientOfVariation(new double[] {3, 3}), 1e-12);
        assertEquals(1.0 / 3, Fairness.coefficientOfVariation(new double[] {2, 1}), 1e-12);
        assertEquals(2.0, Fairness.maxMin(new double[] {2, 1, 1}), 1e-12);
        assertEquals(Double.POSITIVE_INFINITY, Fairness.maxMin(new double[] {2, 0}));
    }

    @Test
    void liveRunsRefuseImpossiblePhases() {
        Scenarios.Scenario s = Scenarios.byName("ib-ar-c1-s1");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Scenarios.live(s, false, 1, 5, 0));
        assertTrue(e.getMessage().contains("at least"), e.getMessage());
    }

    @Test
    void unknownScenariosAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Scenarios.byName("ib-ar-c9-s9"));
        assertTrue(e.getMessage().contains("ib-ar-c1-s1"), e.getMessage());
    }
}
