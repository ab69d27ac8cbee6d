package org.fabriclab.emulator.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code emulator sim}'s report as text (without {@code --json}): the report's fields as a key
 * column and a value, then its tables (jobs, link loads, series). Every column is as wide as its
 * widest cell, header included, so that a long key ({@code packetHopsPerCpuSecond}), a long node
 * or topology name, or a figure in the billions never pushes a row out of line; names are
 * left-aligned, numbers right-aligned.
 */
final class TextReport {
    private TextReport() {
    }

    /** The report's fields that are not lists, a key column as wide as the longest key; a double to 4 significant digits. */
    static void fields(PrintWriter out, Map<String, Object> report) {
        int width = 0;
        for (Map.Entry<String, Object> e : report.entrySet()) {
            if (!(e.getValue() instanceof List)) {
                width = Math.max(width, e.getKey().length());
            }
        }
        for (Map.Entry<String, Object> e : report.entrySet()) {
            Object v = e.getValue();
            if (!(v instanceof List)) {
                out.println(pad(e.getKey(), width, false) + " " + (v instanceof Double d ? String.format(Locale.ROOT, "%.4g", d) : v));
            }
        }
    }

    /** A table with columns named {@code headers}; {@code right[i]} right-aligns column i (numbers). */
    static final class Table {
        private final String[] headers;
        private final boolean[] right;
        private final List<String[]> rows = new ArrayList<>();

        Table(String[] headers, boolean[] right) {
            if (headers.length != right.length) {
                throw new IllegalArgumentException(headers.length + " headers but " + right.length + " alignments");
            }
            this.headers = headers;
            this.right = right;
        }

        /** Adds a row of cells, one per column ({@code null} shown as {@code -}). */
        Table row(Object... cells) {
            if (cells.length != headers.length) {
                throw new IllegalArgumentException(cells.length + " cells in a table of " + headers.length + " columns");
            }
            String[] r = new String[cells.length];
            for (int i = 0; i < cells.length; i++) {
                r[i] = cells[i] == null ? "-" : cells[i].toString();
            }
            rows.add(r);
            return this;
        }

        /** Prints a blank line, the header and the rows, each column as wide as its widest cell. */
        void print(PrintWriter out) {
            int[] width = new int[headers.length];
            for (int i = 0; i < headers.length; i++) {
                width[i] = headers[i].length();
                for (String[] r : rows) {
                    width[i] = Math.max(width[i], r[i].length());
                }
            }
            out.println();
            line(out, headers, width);
            for (String[] r : rows) {
                line(out, r, width);
            }
        }

        private void line(PrintWriter out, String[] cells, int[] width) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < cells.length; i++) {
                b.append(i == 0 ? "" : " ").append(pad(cells[i], i == cells.length - 1 && !right[i] ? 0 : width[i], right[i]));
            }
            out.println(b);
        }
    }

    private static String pad(String s, int width, boolean right) {
        if (s.length() >= width) {
            return s;
        }
        String spaces = " ".repeat(width - s.length());
        return right ? spaces + s : s + spaces;
    }

    /** A number to 4 decimals; {@code -} for none (a closed-loop job's load). */
    static String fixed4(Object v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.4f", ((Number) v).doubleValue());
    }
}
