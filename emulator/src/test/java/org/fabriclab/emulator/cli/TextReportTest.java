package org.fabriclab.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@code emulator sim}'s text report keeps its columns whatever the widths of keys and values: a
 * key longer than 20 characters, a topology name of 60, latencies in the millions of ns and packet
 * counts in the billions (the widths that overflowed the fixed {@code %-20s} / {@code %10d} columns).
 */
class TextReportTest {
    private static List<String> printed(Consumer<PrintWriter> print) {
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            print.accept(out);
        }
        return s.toString().lines().toList();
    }

    @Test
    void everyValueStartsInOneColumnAfterTheLongestKey() {
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("topology", "fat-tree:k=18,levels=3,hosts-per-leaf=9,name=a-very-long-lab-fabric-x");
        report.put("packetHopsPerCpuSecond", 3.2789e9);
        report.put("latencyP99Ns", 12_345_678L);
        report.put("packetsDelivered", 4_294_967_296L);
        report.put("series", List.of(1, 2)); // lists are tables, not fields
        List<String> lines = printed(out -> TextReport.fields(out, report));
        assertEquals(4, lines.size(), String.join("\n", lines));
        int column = "packetHopsPerCpuSecond".length() + 1;
        assertEquals("packetHopsPerCpuSecond 3.279e+09", lines.get(1));
        for (String l : lines) {
            assertTrue(l.charAt(column - 1) == ' ' && l.charAt(column) != ' ', "the value at column " + column + ": " + l);
        }
        assertEquals("packetsDelivered       4294967296", lines.get(3));
    }

    @Test
    void aTablesColumnsAreAsWideAsTheirWidestCell() {
        TextReport.Table t = new TextReport.Table(new String[] {"from", "port", "to", "load"}, new boolean[] {false, true, false, true});
        t.row("sw", 1, "host", TextReport.fixed4(0.5));
        t.row("a-switch-name-far-longer-than-twenty-characters", 254, "h", TextReport.fixed4(1));
        t.row("x", 3_000_000_000L, null, TextReport.fixed4(null));
        List<String> lines = printed(t::print);
        assertEquals("", lines.get(0), "a blank line before the table");
        List<String> table = lines.subList(1, lines.size());
        assertEquals(4, table.size());
        // every row's cells end (right-aligned) or start (left-aligned) where the header's do
        String header = table.get(0);
        int portEnd = header.indexOf("port") + 4;
        int toStart = header.indexOf(" to ") + 1;
        int loadEnd = header.length();
        for (String row : table.subList(1, table.size())) {
            String[] cells = row.trim().split(" +");
            assertEquals(portEnd, row.indexOf(" " + cells[1] + " ") + 1 + cells[1].length(), "port right-aligned: " + row);
            assertEquals(toStart, row.indexOf(cells[2], portEnd), "to left-aligned: " + row);
            assertEquals(loadEnd, row.length(), "load right-aligned: " + row);
        }
        assertTrue(table.get(3).contains("3000000000") && table.get(3).endsWith("-"), table.get(3));
        assertEquals(0, header.indexOf("from"));
        // "from" as wide as the 47-character name, then "port" right-aligned in the 10 digits of 3000000000
        assertEquals(47 + 1 + 10 - "port".length(), header.indexOf("port"), header);
    }

    @Test
    void aRowOfTheWrongWidthIsRefused() {
        TextReport.Table t = new TextReport.Table(new String[] {"a", "b"}, new boolean[] {false, true});
        assertThrows(IllegalArgumentException.class, () -> t.row("only one"));
    }
}
