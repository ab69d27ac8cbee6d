package org.fabriclab.emulator.sweep;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.fabriclab.emulator.plot.Axis;
import org.fabriclab.emulator.plot.PlotArea;
import org.fabriclab.emulator.plot.Svg;

/**
 * A sweep's curves as one SVG, three plots side by side as the Dragonfly papers draw them (the
 * Q-adaptive paper's Figure 5): mean packet latency, throughput and mean hops against offered
 * load, one line per engine in the same colour in each, a legend on the right; on the throughput
 * plot a dashed diagonal where throughput equals the offered load.
 *
 * <p>Latency is on a logarithmic axis over whole decades (microseconds): a saturated point's
 * latency, its source queueing included, is easily a hundred times the others' and would flatten
 * them on a linear one. Throughput is a fraction of the hosts' link rate, like the offered load.
 * Offered load on x is the load asked for (the grid's), not the report's measured
 * {@code offeredLoad}, which the Poisson sources make wobble. Markers: a filled dot where the
 * fabric carried the load; a hollow one where it saturated ({@link Sweep.Point#saturated}: packets
 * refused, nothing measured, or less carried than offered); where latency and hops were not measured at all, a
 * cross at the top edge of those two plots, outside the line. Each plot is a {@code <g
 * class="plot">} holding one {@code <path class="curve" data-engine="..">} per engine.
 */
public final class SweepPlot {
    private static final int PLOT_W = 280;
    private static final int PLOT_H = 290;
    private static final int LEFT = 70;
    private static final int GAP = 100;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final int LEGEND_W = 230;

    private SweepPlot() {
    }

    /** The three plots of {@code curves}, under {@code title}. */
    public static String svg(String title, List<Sweep.Curve> curves) {
        int width = LEFT + 3 * PLOT_W + 2 * GAP + LEGEND_W;
        int height = TOP + PLOT_H + BOTTOM;
        Svg svg = new Svg(width, height);
        svg.add("<text x=\"%d\" y=\"26\" font-size=\"14\">%s</text>", LEFT, Svg.escape(title));
        double maxLoad = 0;
        double maxThroughput = 0;
        double maxHops = 0;
        double minLatency = Double.MAX_VALUE;
        double maxLatency = 0;
        for (Sweep.Curve c : curves) {
            for (Sweep.Point p : c.points()) {
                maxLoad = Math.max(maxLoad, p.load());
                maxThroughput = Math.max(maxThroughput, p.report().throughput());
                if (p.measured()) {
                    maxHops = Math.max(maxHops, p.report().meanHops());
                    minLatency = Math.min(minLatency, latencyUs(p));
                    maxLatency = Math.max(maxLatency, latencyUs(p));
                }
            }
        }
        Axis load = Axis.fromZero("offered load", maxLoad, 5);
        boolean anyMeasured = maxLatency > 0;
        plot(svg, 0, "latency", load, Axis.logDecades("mean packet latency (us, log)", anyMeasured ? minLatency : 0.1,
                anyMeasured ? maxLatency : 1), curves, SweepPlot::latencyUs, true);
        plot(svg, 1, "throughput", load, Axis.fromZero("throughput (of link rate)", Math.max(maxLoad, maxThroughput), 5), curves,
                p -> p.report().throughput(), false);
        plot(svg, 2, "hops", load, Axis.fromZero("mean hops", maxHops, 6), curves, p -> p.report().meanHops(), true);
        double lx = LEFT + 3 * PLOT_W + 2 * GAP + 20;
        double ly = TOP + 10;
        for (int i = 0; i < curves.size(); i++) {
            svg.legend(lx, ly + 20 * i, Svg.colour(i), curves.get(i).engine());
        }
        ly += 20 * curves.size() + 16;
        marker(svg, "carried", lx + 10, ly, "#444", false);
        svg.text(lx + 26, ly + 4, "start", "load carried");
        marker(svg, "saturated", lx + 10, ly + 20, "#444", true);
        svg.text(lx + 26, ly + 24, "start", "saturated (load not carried)");
        cross(svg, lx + 10, ly + 40, "#444");
        svg.text(lx + 26, ly + 44, "start", "nothing measured (off scale)");
        return svg.end();
    }

    /**
     * Plot {@code index} (0 left): its frame, then per engine a path through the points with a
     * value ({@code needsMeasure}: only where latency and hops were measured) and a marker at each.
     */
    private static void plot(Svg svg, int index, String name, Axis x, Axis y, List<Sweep.Curve> curves,
                             ToDoubleFunction<Sweep.Point> value, boolean needsMeasure) {
        svg.open("class=\"plot\" data-plot=\"" + name + "\"");
        PlotArea area = new PlotArea(svg, LEFT + index * (PLOT_W + GAP), TOP, PLOT_W, PLOT_H, x, y);
        area.drawFrame();
        if (name.equals("throughput")) { // what a fabric carrying every load would draw
            double top = Math.min(x.max(), y.max());
            svg.line(area.x(0), area.y(0), area.x(top), area.y(top), "#999", "stroke-dasharray=\"4 3\"");
        }
        for (int i = 0; i < curves.size(); i++) {
            Sweep.Curve c = curves.get(i);
            String colour = Svg.colour(i);
            StringBuilder d = new StringBuilder();
            boolean gap = true;
            for (Sweep.Point p : c.points()) {
                if (needsMeasure && !p.measured()) {
                    gap = true; // the line breaks where nothing was measured
                    continue;
                }
                d.append(d.length() == 0 ? "" : " ").append(gap ? "M" : "L")
                        .append(String.format(Locale.ROOT, "%.1f,%.1f", area.x(p.load()), area.yClipped(value.applyAsDouble(p))));
                gap = false;
            }
            svg.add("<path class=\"curve\" data-engine=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"%s\"/>",
                    Svg.escape(c.engine()), colour, d);
            for (Sweep.Point p : c.points()) {
                if (needsMeasure && !p.measured()) {
                    cross(svg, area.x(p.load()), area.top(), colour);
                } else {
                    marker(svg, p.saturated() ? "saturated" : "carried", area.x(p.load()), area.yClipped(value.applyAsDouble(p)), colour,
                            p.saturated());
                }
            }
        }
        svg.close();
    }

    private static double latencyUs(Sweep.Point p) {
        return p.report().latencyMeanNs() / 1000;
    }

    /** A point's dot: filled where the load was carried, hollow where it saturated. */
    private static void marker(Svg svg, String kind, double x, double y, String colour, boolean hollow) {
        svg.add("<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>", kind, x, y,
                hollow ? "4" : "3", hollow ? "white" : colour, colour);
    }

    /** A point whose value was not measured: a cross. */
    private static void cross(Svg svg, double x, double y, String colour) {
        svg.add("<path class=\"point unmeasured\" d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\" stroke=\"%s\" stroke-width=\"2\"/>",
                x - 4, y - 4, x + 4, y + 4, x - 4, y + 4, x + 4, y - 4, colour);
    }
}
