package org.fabriclab.emulator.scenario;

import java.util.Locale;
import org.fabriclab.emulator.plot.Axis;
import org.fabriclab.emulator.plot.PlotArea;
import org.fabriclab.emulator.plot.Svg;

/**
 * Per-flow throughput over time as an SVG line chart, in the manner of the paper's figures: time
 * on x (microseconds of virtual time, or seconds of wall time for a live run), Gbps on y up to the link rate, one line per flow, dashed
 * lines where the set of flows changes. Plain SVG 1.1, no scripts or external resources.
 */
public final class ThroughputPlot {
    private static final int W = 640;
    private static final int H = 360;
    private static final int LEFT = 60;
    private static final int RIGHT = 150;
    private static final int TOP = 40;
    private static final int BOTTOM = 50;

    private ThroughputPlot() {
    }

    public static String svg(Scenarios.Result r) {
        double unit = r.live() ? 1 : 1e6; // seconds live, microseconds simulated
        double end = r.binSeconds() * (r.series().length == 0 ? 1 : r.series()[0].length) * unit;
        Svg svg = new Svg(W, H);
        svg.add("<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>", LEFT, Svg.escape(String.format(Locale.ROOT, "%s, %s, %s Gbps links (%s)",
                r.scenario(), r.routing().toUpperCase(Locale.ROOT), Svg.number(r.linkGbps()), r.live() ? "live" : "simulated")));
        PlotArea plot = new PlotArea(svg, LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM,
                Axis.linear("time (" + (r.live() ? "s" : "us") + ")", 0, end, 4), Axis.linear("throughput (Gbps)", 0, r.linkGbps(), 4));
        plot.drawFrame();
        for (Scenarios.PhaseResult p : r.phases()) {
            if (p.startSeconds() > 0) {
                double x = plot.x(p.startSeconds() * unit);
                svg.line(x, plot.top(), x, plot.bottom(), "#999", "stroke-dasharray=\"4 3\"");
            }
        }
        // one line per flow
        for (int f = 0; f < r.series().length; f++) {
            StringBuilder points = new StringBuilder();
            double[] v = r.series()[f];
            for (int b = 0; b < v.length; b++) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", plot.x(end * (b + 0.5) / v.length),
                        plot.y(Math.min(v[b], r.linkGbps()))));
            }
            svg.add("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>", Svg.colour(f), points.toString().trim());
            svg.legend(plot.right() + 12, TOP + 10 + 20 * f, Svg.colour(f), r.flowNames().get(f));
        }
        return svg.end();
    }
}
