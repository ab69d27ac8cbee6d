package org.fabriclab.emulator.scenario;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * Per-flow throughput over time as an SVG line chart, in the manner of the paper's figures: time
 * on x (microseconds of virtual time, or seconds of wall time for a live run), Gbps on y up to the link rate, one line per flow, dashed
 * lines where the set of flows changes. Plain SVG 1.1, no scripts or external resources.
 */
public final class ThroughputPlot {
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};
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
        double plotW = W - LEFT - RIGHT;
        double plotH = H - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, H, W, H));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\">%s, %s, %s Gbps links (%s)</text>%n",
                LEFT, r.scenario(), r.routing().toUpperCase(Locale.ROOT), number(r.linkGbps()), r.live() ? "live" : "simulated"));
        // axes and grid
        for (int k = 0; k <= 4; k++) {
            double gbps = r.linkGbps() * k / 4;
            double y = TOP + plotH - plotH * k / 4;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, y,
                    LEFT + plotW, y));
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4, number(gbps)));
        }
        for (Scenarios.PhaseResult p : r.phases()) {
            double x = LEFT + plotW * p.startSeconds() * unit / end;
            if (p.startSeconds() > 0) {
                sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" "
                        + "stroke-dasharray=\"4 3\"/>%n", x, TOP, x, TOP + plotH));
            }
        }
        for (int k = 0; k <= 4; k++) {
            double x = LEFT + plotW * k / 4;
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>%n", x, TOP + plotH + 18,
                    number(end * k / 4)));
        }
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>%n", LEFT,
                TOP + plotH, LEFT + plotW, TOP + plotH));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%.1f\" stroke=\"black\"/>%n", LEFT, TOP, LEFT,
                TOP + plotH));
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">time (%s)</text>%n",
                LEFT + plotW / 2, H - 10, r.live() ? "s" : "us"));
        sb.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">"
                + "throughput (Gbps)</text>%n", TOP + plotH / 2, TOP + plotH / 2));
        // one line per flow
        for (int f = 0; f < r.series().length; f++) {
            String colour = COLOURS[f % COLOURS.length];
            StringBuilder points = new StringBuilder();
            double[] v = r.series()[f];
            for (int b = 0; b < v.length; b++) {
                double x = LEFT + plotW * (b + 0.5) / v.length;
                double y = TOP + plotH - plotH * Math.min(v[b], r.linkGbps()) / r.linkGbps();
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n", colour,
                    points.toString().trim()));
            double ly = TOP + 10 + 20 * f;
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                    LEFT + plotW + 12, ly, LEFT + plotW + 32, ly, colour));
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>%n", LEFT + plotW + 38, ly + 4,
                    r.flowNames().get(f).replace(">", "&gt;")));
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** A tick label: whole numbers plainly, others with as few decimals as they need (0.25, 1.5). */
    private static String number(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                : BigDecimal.valueOf(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }
}
