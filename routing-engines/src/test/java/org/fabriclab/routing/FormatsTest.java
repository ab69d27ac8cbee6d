package org.fabriclab.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.file.LftDumpWriter;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.format.FormatException;
import org.fabriclab.routing.format.LftDump;
import org.fabriclab.routing.format.NetFile;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The net and LFT dump formats: golden files, round trips, ibnetdiscover output, and every refusal. */
class FormatsTest {
    static String resource(String name) throws IOException {
        try (InputStream in = FormatsTest.class.getResourceAsStream("/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String net(Fabric f) throws IOException {
        StringWriter w = new StringWriter();
        NetFile.write(f, w);
        return w.toString();
    }

    static Fabric read(String text) throws IOException {
        return NetFile.read(new StringReader(text), "test.net");
    }

    @Test
    void netFileMatchesGolden() throws IOException {
        assertEquals(resource("golden/ib-ar-c1.net"), net(Topologies.generate("paper:ib-ar-c1")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fat-tree:k=4,levels=3", "torus:4x2x2x2", "dragonfly:p=2,a=4,h=2",
        "dragonfly-plus:p=2,leaves=3,spines=2,h=2", "paper:ib-ar-c2", "rlft:leaves=3,spines=2,hosts=2,parallel=3"})
    void writingThenReadingGivesTheSameFabric(String spec) throws IOException {
        Fabric a = Topologies.generate(spec);
        Fabric b = read(net(a));
        assertEquals(a.nodeCount(), b.nodeCount());
        assertEquals(a.linkCount(), b.linkCount());
        for (int n = 0; n < a.nodeCount(); n++) {
            int m = b.nodeByName(a.name(n)).orElseThrow();
            assertEquals(a.type(n), b.type(m));
            assertEquals(a.nodeGuid(n), b.nodeGuid(m), a.name(n));
            assertEquals(a.portCount(n), b.portCount(m));
            for (int p = 1; p <= a.portCount(n); p++) {
                assertEquals(a.portGuid(n, p), b.portGuid(m, p));
                int ga = a.globalPort(n, p);
                int gb = b.globalPort(m, p);
                assertEquals(a.peerNode(ga) < 0 ? null : a.name(a.peerNode(ga)),
                        b.peerNode(gb) < 0 ? null : b.name(b.peerNode(gb)));
                assertEquals(a.peerPort(ga), b.peerPort(gb));
            }
        }
        assertEquals(net(b).lines().skip(1).toList(), net(a).lines().skip(1).toList());
    }

    @Test
    void readsIbnetdiscoverOutput() throws IOException {
        Fabric f = NetFile.read(new StringReader(resource("ibnetdiscover-sample.net")), "ibnetdiscover-sample.net");
        assertEquals(2, f.switchCount());
        assertEquals(2, f.caCount());
        assertEquals(3, f.linkCount());
        int sw = f.nodeByName("S-0002c90200402e88").orElseThrow();
        assertEquals(0x0002c90200402e88L, f.nodeGuid(sw));
        assertEquals("MT47396 Infiniscale-III Mellanox Technologies", f.description(sw));
        int ca = f.nodeByName("H-0002c90200226a48").orElseThrow();
        assertEquals(0x0002c90200226a48L, f.nodeGuid(ca));
        assertEquals(0x0002c90200226a49L, f.portGuid(ca, 1));
        assertEquals(sw, f.peerNode(f.globalPort(ca, 1)));
    }

    /**
     * {@code ibnetdiscover-c2.net} is what Debian's ibnetdiscover printed when run against Debian's
     * ibsim simulating our {@code paper:ib-ar-c2} net file (see docs/benchmarks.md): the fabric read
     * back is ours, link for link, matched by GUID, with our names as node descriptions.
     */
    @Test
    void readsRealIbnetdiscoverOutputOfOurOwnFabric() throws IOException {
        Fabric ours = Topologies.generate("paper:ib-ar-c2");
        Fabric seen = NetFile.read(new StringReader(resource("ibnetdiscover-c2.net")), "ibnetdiscover-c2.net");
        assertEquals(ours.nodeCount(), seen.nodeCount());
        assertEquals(ours.linkCount(), seen.linkCount());
        for (int n = 0; n < ours.nodeCount(); n++) {
            int m = seen.nodeByGuid(ours.nodeGuid(n)).orElseThrow();
            assertEquals(ours.name(n), seen.description(m));
            for (int p = 1; p <= ours.portCount(n); p++) {
                int a = ours.globalPort(n, p);
                int b = seen.globalPort(m, p);
                assertEquals(ours.portGuid(n, p), seen.portGuid(m, p));
                assertEquals(ours.nodeGuid(ours.peerNode(a)), seen.nodeGuid(seen.peerNode(b)));
                assertEquals(ours.peerPort(a), seen.peerPort(b));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "unknown node|Switch 4 \"S1\"\\n[1] \"S9\"[1]\\n|test.net:2:|unknown node \"S9\"",
        "one side only|Switch 4 \"S1\"\\n[1] \"S2\"[2]\\nSwitch 4 \"S2\"\\n[1] \"S1\"[2]\\n|test.net:2:|listed on one side only",
        "inconsistent|Switch 4 \"S1\"\\n[1] \"S2\"[1]\\n[2] \"S3\"[1]\\nSwitch 4 \"S2\"\\n[1] \"S3\"[2]\\nSwitch 4 \"S3\"\\n[1] \"S1\"[2]\\n[2] \"S2\"[1]\\n|test.net:2:|inconsistent",
        "port out of range|Switch 4 \"S1\"\\n[5] \"S2\"[1]\\n|test.net:2:|port 5 is out of range",
        "remote port out of range|Switch 4 \"S1\"\\n[1] \"S2\"[9]\\nSwitch 4 \"S2\"\\n|test.net:2:|remote port 9 is out of range",
        "duplicate name|Switch 4 \"S1\"\\nSwitch 8 \"S1\"\\n|test.net:2:|duplicate node name \"S1\" (first defined at line 1)",
        "bad port count|Switch x4 \"S1\"\\n|test.net:1:|bad port count 'x4'",
        "bad port number|Switch 4 \"S1\"\\n[a] \"S2\"[1]\\n|test.net:2:|bad port number 'a'",
        "port line first|[1] \"S2\"[1]\\n|test.net:1:|port line before any Switch",
        "port twice|Switch 4 \"S1\"\\n[1] \"H1\"[1]\\n[1] \"H1\"[1]\\nHca 1 \"H1\"\\n[1] \"S1\"[1]\\n|test.net:3:|listed twice",
        "garbage|Switch 4 \"S1\"\\nthis is not a net file\\n|test.net:2:|unrecognised line",
        "router|Rt 2 \"R1\"\\n|test.net:1:|routers (Rt) are not supported",
        "name cut short|Switch 4 \"S1\"\\nCa\t1 \"H-0002c903\t\t# \"host1 HCA-1\"\\n|test.net:2:|holds a tab: its closing quote is missing",
        "empty file|~~|test.net:1:|no nodes",
        "comments only|# nothing\\n\\n# here\\n|test.net:3:|no nodes: the file has no Switch or Hca/Ca line",
        "port to itself|Switch 4 \"S1\"\\n[1] \"S1\"[1]\\n|test.net:2:|port 1 of \"S1\" is cabled to itself",
        "loopback cable|Switch 4 \"S1\"\\n[1] \"S1\"[2]\\n[2] \"S1\"[1]\\n|test.net:2:|cabled to its own port 2: a loopback cable",
        "switch GUID 0|switchguid=0x0\\nSwitch 4 \"S1\"\\n|test.net:2:|gets GUID 0",
        "CA port GUID 0|Switch 4 \"S1\"\\n[1] \"H1\"[1]\\nHca 1 \"H1\"\\n[1](0) \"S1\"[1]\\n|test.net:4:|port 1 of \"H1\" has GUID 0",
        "duplicate node GUID|switchguid=0x10\\nSwitch 4 \"S1\"\\nswitchguid=0x10\\nSwitch 4 \"S2\"\\n|test.net:4:|\"S2\" has GUID 0x0000000000000010, the GUID of \"S1\" (line 2)",
        "duplicate port GUID|Switch 4 \"S1\"\\n[1] \"H1\"[1]\\n[2] \"H2\"[1]\\nHca 1 \"H1\"\\n[1](abc) \"S1\"[1]\\nHca 1 \"H2\"\\n[1](abc) \"S1\"[2]\\n|test.net:7:|port 1 of \"H2\" has GUID 0x0000000000000abc, the GUID of port 1 of \"H1\"",
        "port GUID of a switch|switchguid=0x100001\\nSwitch 4 \"S1\"\\n[1] \"H1\"[1]\\ncaguid=0x100000\\nHca 1 \"H1\"\\n[1] \"S1\"[1]\\n|test.net:5:|the GUID of \"S1\" (line 2)",
        "GUID too long|switchguid=0x1234567890abcdef0\\n|test.net:1:|bad GUID",
        "not UTF-8|Switch 4 \"S1\"\\n# caf\uFFFD\\n|test.net:2:|column 6: bytes that are not UTF-8"})
    void malformedFilesNameFileLineAndProblem(String what, String text, String location, String problem) {
        FormatException e = assertThrows(FormatException.class, () -> read(text.replace("\\n", "\n")));
        assertTrue(e.getMessage().startsWith(location), what + ": " + e.getMessage());
        assertTrue(e.getMessage().contains(problem), what + ": " + e.getMessage());
    }

    /** Real ibnetdiscover output has GUIDs of 2^63 and more (a ConnectX-6's): read unsigned, not refused as "bad GUID". */
    @Test
    void guidsOfTwoToTheSixtyThirdAndMoreAreRead() throws IOException {
        Fabric f = read("switchguid=0xf452140300103640(f452140300103640)\nSwitch 36 \"S1\"\n[1] \"H1\"[1](f452140300103649)\n"
                + "caguid=0xf452140300103648\nCa 1 \"H1\"\n[1](f452140300103649) \"S1\"[1]\n");
        assertEquals(0xf452140300103640L, f.nodeGuid(f.nodeByName("S1").orElseThrow()));
        int h = f.nodeByName("H1").orElseThrow();
        assertEquals(0xf452140300103648L, f.nodeGuid(h));
        assertEquals(0xf452140300103649L, f.portGuid(h, 1));
        assertEquals(0xffffffffffffffffL, read("switchguid=18446744073709551615\nSwitch 1 \"S\"\n").nodeGuid(0), "decimal, unsigned");
    }

    /** A byte-order mark (Windows editors write one) is not an unrecognised first line. */
    @Test
    void aByteOrderMarkIsDropped() throws IOException {
        String text = resource("ibnetdiscover-sample.net");
        Fabric plain = read(text);
        Fabric marked = read("\uFEFF" + text);
        assertEquals(net(plain), net(marked));
        assertEquals(1, read("\uFEFFSwitch 4 \"S1\"\n").nodeCount());
    }

    /**
     * Bytes that are not UTF-8 are reported on their own line, read through {@code TextLines.utf8}
     * (a strict decoder fails 8 KB at a time and says "Input length = 1"), however far into the file.
     */
    @Test
    void bytesThatAreNotUtf8AreReportedOnTheirLine() throws IOException {
        StringBuilder text = new StringBuilder("Switch 4 \"S1\"\n");
        for (int i = 0; i < 500; i++) {
            text.append("# a comment line long enough to fill the decoder's buffer many times over\n");
        }
        byte[] head = text.toString().getBytes(StandardCharsets.UTF_8);
        byte[] bytes = java.util.Arrays.copyOf(head, head.length + 4);
        bytes[head.length] = 'x';
        bytes[head.length + 1] = (byte) 0xC3; // a lead byte without its continuation
        bytes[head.length + 2] = '"';
        bytes[head.length + 3] = '\n';
        FormatException e = assertThrows(FormatException.class,
                () -> NetFile.read(TextLines.utf8(new java.io.ByteArrayInputStream(bytes)), "bin.net"));
        assertEquals(502, e.line(), e.getMessage());
        assertEquals("bin.net:502: column 2: bytes that are not UTF-8 text (a binary or wrongly encoded file?)", e.getMessage());
        // a strict reader's failure is a FormatException too, not a bare MalformedInputException
        assertThrows(FormatException.class, () -> NetFile.read(new java.io.InputStreamReader(new java.io.ByteArrayInputStream(bytes),
                StandardCharsets.UTF_8.newDecoder()), "bin.net"));
    }

    /** A refused file's message repeats at most a line's worth of what it refuses. */
    @Test
    void longGarbageIsEchoedShort() {
        FormatException e = assertThrows(FormatException.class, () -> read("x".repeat(65536) + "\n"));
        assertTrue(e.getMessage().length() < Excerpt.QUOTED + 200, e.getMessage());
        assertTrue(e.getMessage().contains("(65536 characters)"), e.getMessage());
    }

    static ForwardingTables route(Fabric f, LidAssignment lids, String engine, RoutingOptions o) throws RoutingException {
        return RoutingEngines.create(engine).route(new RoutingRequest(f, lids, o));
    }

    static String dump(ForwardingTables t) throws IOException {
        StringWriter w = new StringWriter();
        LftDumpWriter.write(t, w);
        return w.toString();
    }

    @Test
    void lftDumpMatchesGolden() throws Exception {
        Fabric f = Topologies.generate("paper:ib-ar-c1");
        assertEquals(resource("golden/ib-ar-c1.minhop.lfts"), dump(route(f, LidAssigner.assign(f), "minhop", RoutingOptions.DEFAULTS)));
    }

    @Test
    void fileEngineReplaysADumpEvenWhenLidsMoved() throws Exception {
        Fabric f = Topologies.generate("torus:3x3,hosts=2");
        LidAssignment lids = LidAssigner.assign(f);
        ForwardingTables original = route(f, lids, "updn", RoutingOptions.DEFAULTS);
        LftDump d = LftDump.read(new StringReader(dump(original)), "lfts.dump");

        ForwardingTables same = route(f, lids, "file", RoutingOptions.DEFAULTS.withLftDump(d));
        assertTrue(original.sameEntries(same));

        // a restart that assigned every LID 100 higher: the dump's port GUIDs re-map them
        Map<Long, Integer> shifted = new HashMap<>();
        lids.byPortGuid(f).forEach((guid, lid) -> shifted.put(guid, lid + 100));
        LidAssignment moved = LidAssigner.assign(f, shifted);
        ForwardingTables replayed = route(f, moved, "file", RoutingOptions.DEFAULTS.withLftDump(d));
        assertEquals(RouteAnalyzer.analyze(original).edgeForwardingIndex(), RouteAnalyzer.analyze(replayed).edgeForwardingIndex());
        assertEquals(0, RouteAnalyzer.analyze(replayed).unreachablePairs());
        for (int s = 0; s < f.switchCount(); s++) {
            for (int e = 0; e < f.endpointCount(); e++) {
                assertEquals(original.port(s, lids.endpointLid(e)), replayed.port(s, moved.endpointLid(e)));
            }
        }
    }

    @Test
    void fileEngineRefusesADumpOfAnotherFabric() throws Exception {
        Fabric a = Topologies.generate("torus:3x3");
        Fabric b = Topologies.generate("fat-tree:k=2,levels=2");
        LftDump d = LftDump.read(new StringReader(dump(route(a, LidAssigner.assign(a), "minhop", RoutingOptions.DEFAULTS))), "a.dump");
        RoutingException e = assertThrows(RoutingException.class,
                () -> route(b, LidAssigner.assign(b), "file", RoutingOptions.DEFAULTS.withLftDump(d)));
        assertTrue(e.getMessage().contains("a.dump:"), e.getMessage());
    }

    @Test
    void malformedDumpNamesLine() {
        FormatException e = assertThrows(FormatException.class, () -> LftDump.read(new StringReader(
                "Unicast lids [0-3] of switch Lid 1 guid 0x0000000000200000 ('S'):\n0x0001 000 # x\n0x0002 300\n"), "d.dump"));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("port 300 is out of range"));
    }

    /**
     * A dump refused for what a user meets (bytes that are not UTF-8, a GUID too long, a line too long to
     * repeat): the file and line and a bounded reason, never a decoder's or a number parser's exception.
     */
    @Test
    void aDumpsBadBytesLongGuidsAndLongLinesAreRefusedWithTheirLine() {
        String header = "Unicast lids [0-3] of switch Lid 1 guid 0x0000000000200000 ('S'):\n";
        byte[] head = (header + "0x0001 000 # x\n").getBytes(StandardCharsets.UTF_8);
        byte[] bytes = java.util.Arrays.copyOf(head, head.length + 3);
        bytes[head.length] = '0';
        bytes[head.length + 1] = (byte) 0xFF;
        bytes[head.length + 2] = '\n';
        FormatException bin = assertThrows(FormatException.class,
                () -> LftDump.read(TextLines.utf8(new java.io.ByteArrayInputStream(bytes)), "bin.dump"));
        assertEquals("bin.dump:3: column 2: bytes that are not UTF-8 text (a binary or wrongly encoded file?)", bin.getMessage());

        FormatException guid = assertThrows(FormatException.class, () -> LftDump.read(new StringReader(
                "Unicast lids [0-3] of switch Lid 1 guid 0x111111111111111111111 ('S'):\n"), "g.dump"));
        assertEquals("g.dump:1: GUID 0x111111111111111111111 is longer than 64 bits (16 hex digits)", guid.getMessage());
        FormatException port = assertThrows(FormatException.class, () -> LftDump.read(new StringReader(
                header + "0x0001 001 # Channel Adapter portguid 0x11111111111111111111\n"), "p.dump"));
        assertEquals(2, port.line(), port.getMessage());

        FormatException line = assertThrows(FormatException.class, () -> LftDump.read(new StringReader(
                header + "0xzz\t" + "z".repeat(100_000) + "\n"), "long.dump"));
        assertTrue(line.getMessage().startsWith("long.dump:2: unrecognised line '0xzz\\tzzz"), line.getMessage());
        assertTrue(line.getMessage().length() < 500, "length " + line.getMessage().length());
    }
}
