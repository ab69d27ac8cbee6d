package org.fabriclab.routing.lid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.format.FormatException;
import org.fabriclab.routing.format.Guid2LidFile;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * LIDs kept across restarts: a bad line of {@code guid2lid} costs that line only, a node that is
 * down keeps its LID, a port's current LID is kept when the file does not name it.
 */
class Guid2LidTest {
    private static final Fabric F = Topologies.generate("fat-tree:k=4,levels=2");

    private static String file(Map<Long, Integer> lids) throws IOException {
        StringWriter w = new StringWriter();
        Guid2LidFile.write(lids, w);
        return w.toString();
    }

    /** Each kind of bad line is skipped with its line number; every other port keeps its LID (none renumbered). */
    @Test
    void aBadLineCostsThatLineOnly() throws IOException {
        LidAssignment a = LidAssigner.assign(F);
        // LIDs from 100 up, so that a fresh assignment (from 1) could not pass for kept ones
        Map<Long, Integer> shifted = new HashMap<>();
        a.byPortGuid(F).forEach((g, l) -> shifted.put(g, l + 100));
        String good = file(LidAssigner.assign(F, shifted).byPortGuid(F));
        List<String> lines = good.lines().toList();
        String[] bad = {
            "garbage here",                          // 2 fields, neither a number
            "0x0000000000200000 0x0000 0x0000",      // LID 0
            "0x0000000000200001 0xc000 0xc000",      // multicast range
            "0x00000000002000",                      // cut short
            "0x0000000000200002 0x\uFFFD\uFFFD",       // bytes that were not UTF-8
            "0x0000000000000000 0x0005 0x0005",      // GUID 0
            "0x0000000000200003 0x0010 0x0009",      // max below base
            "0x0000000000200004 0x0011 0x0011 extra",
        };
        StringBuilder text = new StringBuilder("# guid2lid\n");
        for (int i = 0; i < lines.size(); i++) {
            text.append(lines.get(i)).append('\n');
            if (i < bad.length) {
                text.append(bad[i]).append('\n');
            }
        }
        Guid2LidFile.Contents c = Guid2LidFile.read(new StringReader(text.toString()), "state/guid2lid");
        assertEquals(bad.length, c.skipped().size(), c.skipped().toString());
        for (int i = 0; i < bad.length; i++) {
            FormatException e = c.skipped().get(i);
            assertEquals(3 + 2 * i, e.line(), e.getMessage());
            assertTrue(e.getMessage().startsWith("state/guid2lid:" + (3 + 2 * i) + ": ") && e.getMessage().endsWith("; the line is skipped"),
                    e.getMessage());
        }
        assertEquals(lines.size(), c.lids().size());
        LidAssignment kept = LidAssigner.assign(F, c.lids());
        assertEquals(shifted, kept.byPortGuid(F), "no port renumbered");
    }

    /** The second listing of a port, and a LID given to a second port, are skipped: one LID per port, one port per LID. */
    @Test
    void aPortOrLidListedTwiceKeepsTheFirst() throws IOException {
        Guid2LidFile.Contents c = Guid2LidFile.read(new StringReader(
                "0x10 0x1 0x1\n0x10 0x2 0x2\n0x11 0x1 0x1\n0x12 0x3\n"), "g");
        assertEquals(Map.of(0x10L, 1, 0x12L, 3), c.lids());
        assertEquals(List.of("g:2: port 0x0000000000000010 is listed again (line 1 is kept); the line is skipped",
                "g:3: LID 1 is given again (line 1 keeps it); the line is skipped"), c.skipped().stream().map(Throwable::getMessage).toList());
    }

    /** Binary bytes read through {@link TextLines#utf8} are one bad line each, not the whole file. */
    @Test
    void binaryBytesAreABadLine() throws IOException {
        byte[] bytes = "0x10 0x1 0x1\n\u0000\u0001\n0x11 0x2 0x2\n".getBytes(StandardCharsets.UTF_8);
        bytes[13] = (byte) 0xFE; // never in UTF-8
        Guid2LidFile.Contents c = Guid2LidFile.read(TextLines.utf8(new ByteArrayInputStream(bytes)), "g");
        assertEquals(Map.of(0x10L, 1, 0x11L, 2), c.lids());
        assertEquals(1, c.skipped().size());
        assertEquals(2, c.skipped().get(0).line());
    }

    /** A node that is down keeps its LID: no newcomer takes it while another is free, and the file keeps it. */
    @Test
    void anAbsentNodeKeepsItsLid() {
        FabricBuilder b = new FabricBuilder("t");
        int s = b.addNode(org.fabriclab.routing.fabric.NodeType.SWITCH, "S", 4, 0x200000);
        int h1 = b.addNode(org.fabriclab.routing.fabric.NodeType.CA, "H1", 1, 0x100000);
        b.link(s, 1, h1, 1);
        Fabric one = b.build();
        // remembered: S at 1, H1 (port GUID 0x100001) at 2, H2 (port 0x100003, down now) at 3
        Map<Long, Integer> remembered = Map.of(0x200000L, 1, 0x100001L, 2, 0x100003L, 3);
        int h3 = b.addNode(org.fabriclab.routing.fabric.NodeType.CA, "H3", 1, 0x100004);
        b.link(s, 3, h3, 1);
        Fabric withNewcomer = b.build();
        LidAssignment a = LidAssigner.assign(withNewcomer, remembered);
        assertEquals(4, a.lidOf(withNewcomer, withNewcomer.nodeByName("H3").orElseThrow(), 1), "LID 3 is H2's, though H2 is down");
        Map<Long, Integer> file = a.byPortGuidRemembering(withNewcomer, remembered);
        assertEquals(Map.of(0x200000L, 1, 0x100001L, 2, 0x100003L, 3, 0x100005L, 4), file);
        assertEquals(List.of(1, 2, 3, 4), List.copyOf(file.values()), "in LID order");
        // without the remembered one the same fabric would have given H3 LID 3
        assertEquals(3, LidAssigner.assign(withNewcomer).lidOf(withNewcomer, withNewcomer.nodeByName("H3").orElseThrow(), 1));
        assertEquals(Map.of(0x200000L, 1, 0x100001L, 2, 0x100003L, 3),
                LidAssigner.assign(one, remembered).byPortGuidRemembering(one, remembered));
    }

    /** Without a file, the LIDs the ports hold are kept (a lost or unreadable guid2lid renumbers nothing); the file comes first. */
    @Test
    void portsKeepTheLidsTheyHold() {
        LidAssignment fresh = LidAssigner.assign(F);
        Map<Long, Integer> held = new HashMap<>();
        fresh.byPortGuid(F).forEach((g, l) -> held.put(g, 200 + l));
        assertEquals(held, LidAssigner.assign(F, Map.of(), held).byPortGuid(F));
        long oneSwitch = F.nodeGuid(F.switchNode(0));
        LidAssignment both = LidAssigner.assign(F, Map.of(oneSwitch, 7), held);
        assertEquals(7, both.switchLid(0), "the file before the port");
        assertNotEquals(held.get(oneSwitch), both.switchLid(0));
        assertEquals(held.get(F.nodeGuid(F.switchNode(1))), both.switchLid(1));
    }

    /** When every free LID is remembered for an absent port, the newcomer still gets one (the lowest of those). */
    @Test
    void rememberedLidsGoWhenNoOtherIsLeft() {
        Map<Long, Integer> remembered = new HashMap<>();
        for (int lid = 1; lid <= LidAssignment.MAX_UNICAST_LID; lid++) {
            remembered.put(0x7000_0000L + lid, lid); // ports of another fabric hold every LID
        }
        LidAssignment a = LidAssigner.assign(F, remembered);
        assertEquals(F.switchCount() + F.endpointCount(), a.maxLid(), "the lowest LIDs, as without the file");
    }
}
