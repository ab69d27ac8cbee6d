package org.fabriclab.emulator.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The axes the plots draw: round steps from zero, whole decades on a log scale, values mapped onto the area. */
class AxisTest {
    @Test
    void aLinearAxisFromZeroTakesARoundStep() {
        assertEquals(List.of(0.0, 0.2, 0.4, 0.6, 0.8, 1.0), Axis.fromZero("load", 0.9, 5).ticks());
        assertEquals(List.of(0.0, 1.0, 2.0, 3.0, 4.0, 5.0), Axis.fromZero("hops", 4.27, 6).ticks());
        assertEquals(10, Axis.fromZero("hops", 9.1, 6).max(), "step 2: 0..10");
        assertEquals(1, Axis.fromZero("nothing", 0, 5).max(), "no values: 0..1");
    }

    @Test
    void aLogAxisCoversWholeDecadesWithATickAtEach() {
        Axis a = Axis.logDecades("latency", 0.35, 812);
        assertEquals(List.of(0.1, 1.0, 10.0, 100.0, 1000.0), a.ticks());
        assertEquals(0, a.fraction(0.1), 1e-12);
        assertEquals(0.5, a.fraction(10), 1e-12);
        assertEquals(1, a.fraction(1000), 1e-12);
        assertEquals(List.of(1.0, 10.0), Axis.logDecades("one value", 2, 2).ticks(), "at least one decade");
        assertThrows(IllegalArgumentException.class, () -> Axis.logDecades("latency", 0, 1));
    }

    @Test
    void aPlotAreaMapsValuesUpwardsAndClipsToItsEdges() {
        PlotArea p = new PlotArea(new Svg(100, 100), 10, 20, 50, 40, Axis.linear("x", 0, 1, 4), Axis.linear("y", 0, 2, 4));
        assertEquals(10, p.x(0), 1e-12);
        assertEquals(60, p.x(1), 1e-12);
        assertEquals(60, p.y(0), 1e-12);
        assertEquals(20, p.y(2), 1e-12);
        assertEquals(20, p.yClipped(5), 1e-12, "off the scale: at the top edge");
        assertEquals("0.25", Svg.number(0.25));
        assertEquals("3", Svg.number(3));
        assertEquals("a &lt; b &amp; &quot;c&quot;", Svg.escape("a < b & \"c\""));
    }
}
