package org.fabriclab.emulator.plot;

/**
 * A rectangle of an {@link Svg} where values are drawn against two {@link Axis axes}: maps values to
 * pixels and draws the frame (a grey grid line and a label at each y tick, a label under each x
 * tick, the two axis lines, the axes' labels: x centred below, y upwards on the left).
 */
public final class PlotArea {
    private final Svg svg;
    private final double left;
    private final double top;
    private final double width;
    private final double height;
    private final Axis x;
    private final Axis y;

    public PlotArea(Svg svg, double left, double top, double width, double height, Axis x, Axis y) {
        this.svg = svg;
        this.left = left;
        this.top = top;
        this.width = width;
        this.height = height;
        this.x = x;
        this.y = y;
    }

    /** The pixel column of {@code v} on the x axis. */
    public double x(double v) {
        return left + width * x.fraction(v);
    }

    /** The pixel row of {@code v} on the y axis (up is more). */
    public double y(double v) {
        return top + height - height * y.fraction(v);
    }

    /** The pixel row of {@code v}, held within the area: a value off the scale is drawn at its edge. */
    public double yClipped(double v) {
        return Math.max(top, Math.min(top + height, y(v)));
    }

    public double left() {
        return left;
    }

    public double top() {
        return top;
    }

    public double right() {
        return left + width;
    }

    public double bottom() {
        return top + height;
    }

    /** The grid, ticks, axis lines and labels. */
    public void drawFrame() {
        for (double t : y.ticks()) {
            double py = y(t);
            svg.line(left, py, right(), py, "#ddd", "");
            svg.text(left - 6, py + 4, "end", Svg.number(t));
        }
        for (double t : x.ticks()) {
            svg.text(x(t), bottom() + 18, "middle", Svg.number(t));
        }
        svg.line(left, bottom(), right(), bottom(), "black", "");
        svg.line(left, top, left, bottom(), "black", "");
        svg.text(left + width / 2, bottom() + 40, "middle", x.label());
        svg.upwardText(left - 44, top + height / 2, y.label());
    }
}
