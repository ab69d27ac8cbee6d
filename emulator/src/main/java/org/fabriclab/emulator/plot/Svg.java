package org.fabriclab.emulator.plot;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * One SVG document being written: its header and white background, then elements in drawing
 * order (later ones on top), then {@link #end}. Coordinates are written to a tenth of a pixel,
 * text is escaped. Not thread-safe; one per plot.
 */
public final class Svg {
    /** Line colours, in the order lines take them (matplotlib's first seven). */
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"};

    private final StringBuilder sb = new StringBuilder();

    /** A document of {@code width} x {@code height} pixels, sans-serif 12 px text, on white. */
    public Svg(int width, int height) {
        add("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
                + "font-size=\"12\">", width, height, width, height);
        add("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>", width, height);
    }

    /** The colour of line {@code i} (wrapping after seven). */
    public static String colour(int i) {
        return COLOURS[i % COLOURS.length];
    }

    /** An element written as given: {@code format} with {@code args}, numbers in the root locale, then a newline. */
    public Svg add(String format, Object... args) {
        sb.append(String.format(Locale.ROOT, format, args)).append('\n');
        return this;
    }

    /** A line; {@code attributes} (e.g. {@code stroke-width="2"}) may be empty. */
    public Svg line(double x1, double y1, double x2, double y2, String stroke, String attributes) {
        return add("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"%s/>", x1, y1, x2, y2, stroke,
                attributes.isEmpty() ? "" : " " + attributes);
    }

    /** Text at ({@code x}, {@code y}), anchored {@code start}, {@code middle} or {@code end}. */
    public Svg text(double x, double y, String anchor, String text) {
        return add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x, y, anchor, escape(text));
    }

    /** Text turned to read upwards, centred on ({@code x}, {@code y}): a y axis's label. */
    public Svg upwardText(double x, double y, String text) {
        return add("<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-90 %.1f %.1f)\" text-anchor=\"middle\">%s</text>", x, y, x, y,
                escape(text));
    }

    /** A legend entry at ({@code x}, {@code y}): a short thick line of {@code colour}, then {@code label}. */
    public Svg legend(double x, double y, String colour, String label) {
        line(x, y, x + 20, y, colour, "stroke-width=\"3\"");
        return text(x + 26, y + 4, "start", label);
    }

    /** Opens a group of elements with {@code attributes} (e.g. {@code class="plot"}); {@link #close} ends it. */
    public Svg open(String attributes) {
        return add("<g %s>", attributes);
    }

    public Svg close() {
        return add("</g>");
    }

    /** The document, closed. */
    public String end() {
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** A tick label: whole numbers plainly, others with as few decimals as they need, to three figures (0.25, 1.5). */
    public static String number(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
                : BigDecimal.valueOf(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    /** {@code s} as SVG text or an attribute's value. */
    public static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
