package org.fabriclab.routing.format;

import org.fabriclab.routing.text.Excerpt;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.fabric.NodeType;

/**
 * The topology format that {@code ibnetdiscover} prints and {@code ibsim} simulates:
 *
 * <pre>
 * # comment
 * switchguid=0x200000             GUID of the next switch (ibsim: and the ones after it, +1 each)
 * Switch 36 "L1_0_0"  # "desc"    a node: type, port count, name; a quoted description may follow #
 * [1]  "H0_0_0"[1]                port 1 cabled to port 1 of H0_0_0 (remote port defaults to 1)
 * [2](2c9000001)  "S2"[4](2c9004) # lid 3 4xQDR     ibnetdiscover adds port GUIDs and comments
 * caguid=0x100000
 * Hca 1 "H0_0_0"                  Hca or Ca; a CA's port p has GUID node GUID + p unless given
 * [1]  "L1_0_0"[1]
 * </pre>
 *
 * Every link must be written on both of its ends, as ibsim requires. {@code vendid=}, {@code devid=}
 * and {@code sysimgguid=} lines are accepted and ignored. GUIDs are unsigned 64-bit numbers
 * (ibnetdiscover prints ones of 2^63 and more). A file that breaks a rule is refused with a
 * {@link FormatException} naming the file, the line and the problem, and nothing half-built is
 * returned: a line that is not UTF-8, a file with no node, a port cabled to itself or to another
 * port of its own node (a loopback cable), GUID 0, and two nodes or two cabled CA ports with one
 * GUID (they would share a LID), besides lines that do not parse and cables listed inconsistently.
 * No other exception leaves the parser (a fuzz test holds it to that).
 */
public final class NetFile {
    private static final Pattern HEADER = Pattern.compile("^(Switch|Hca|Ca|Rt)\\s+(\\S+)\\s+\"([^\"]*)\"(.*)$");
    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\S+?)\\](?:\\(([0-9a-fA-Fx]+)\\))?\\s*\"([^\"]*)\"\\s*(?:\\[(\\S+?)\\])?(?:\\(([0-9a-fA-Fx]+)\\))?(.*)$");
    private static final Pattern GUID_LINE = Pattern.compile("^(switchguid|caguid|hcaguids|rtguid)\\s*([=+])\\s*(0x[0-9a-fA-F]+|\\d+)(?:\\(.*\\))?\\s*$");
    private static final Pattern IGNORED = Pattern.compile("^(vendid|devid|sysimgguid)\\s*=.*$");
    private static final Pattern DESCRIPTION = Pattern.compile("#\\s*\"([^\"]*)\"");

    private NetFile() {
    }

    private record NodeRecord(NodeType type, String name, int ports, long guid, String description, int line,
                              Map<Integer, PortRecord> portLines) {
    }

    private record PortRecord(int port, String remote, int remotePort, Long portGuid, int line) {
    }

    /**
     * Reads a fabric.
     *
     * @param in     the file's text (a reader from {@link TextLines#utf8} lets a byte that is not
     *               UTF-8 be reported on its own line)
     * @param source the file name, used in error messages and as the fabric's kind ({@code file:NAME})
     */
    public static Fabric read(Reader in, String source) throws IOException {
        TextLines lines = new TextLines(in, source);
        Map<String, NodeRecord> nodes = new LinkedHashMap<>();
        long switchBase = FabricBuilder.DEFAULT_SWITCH_GUID_BASE;
        long switchNext = switchBase;
        long caBase = FabricBuilder.DEFAULT_CA_GUID_BASE;
        long caNext = caBase;
        NodeRecord current = null;
        String line;
        while ((line = lines.next()) != null) {
            int lineNo = lines.lineNo();
            int bad = TextLines.badByteAt(line);
            if (bad > 0) {
                throw new FormatException(source, lineNo, TextLines.notUtf8(bad));
            }
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (t.startsWith("[")) {
                if (current == null) {
                    throw new FormatException(source, lineNo, "port line before any Switch or Hca line: '" + Excerpt.bare(t) + "'");
                }
                PortRecord p = parsePort(t, source, lineNo, current);
                PortRecord before = current.portLines().putIfAbsent(p.port(), p);
                if (before != null) {
                    throw new FormatException(source, lineNo, "port " + p.port() + " of \"" + current.name()
                            + "\" is listed twice (first at line " + before.line() + ")");
                }
                continue;
            }
            current = null;
            Matcher h = HEADER.matcher(t);
            if (h.matches()) {
                String kind = h.group(1);
                if (kind.equals("Rt")) {
                    throw new FormatException(source, lineNo, "routers (Rt) are not supported; only Switch and Hca/Ca nodes");
                }
                int ports = parseInt(h.group(2), "port count", source, lineNo);
                if (ports < 1 || ports > FabricBuilder.MAX_PORTS) {
                    throw new FormatException(source, lineNo, "port count " + ports + " of \"" + Excerpt.bare(h.group(3))
                            + "\" is out of range 1.." + FabricBuilder.MAX_PORTS);
                }
                String name = h.group(3);
                if (name.isEmpty()) {
                    throw new FormatException(source, lineNo, "a node needs a non-empty name");
                }
                if (name.indexOf('\t') >= 0) {
                    // a name cut before its closing quote runs on to the next quote, a comment's: "H-0002c9\t\t# "
                    throw new FormatException(source, lineNo, "node name \"" + Excerpt.bare(name) + "\" holds a tab: its closing quote "
                            + "is missing, so the name ran on to the next quote");
                }
                NodeRecord prev = nodes.get(name);
                if (prev != null) {
                    throw new FormatException(source, lineNo, "duplicate node name \"" + Excerpt.bare(name)
                            + "\" (first defined at line " + prev.line() + ")");
                }
                Matcher d = DESCRIPTION.matcher(h.group(4));
                String desc = d.find() ? d.group(1) : name;
                NodeType type = kind.equals("Switch") ? NodeType.SWITCH : NodeType.CA;
                long guid;
                if (type == NodeType.SWITCH) {
                    guid = switchNext++;
                } else {
                    guid = caNext;
                    caNext += ports + 1;
                }
                if (guid == 0) {
                    throw new FormatException(source, lineNo, "\"" + Excerpt.bare(name) + "\" gets GUID 0 from the guid lines before it; "
                            + "0 is no GUID (IBA): give it one with a switchguid= or caguid= line");
                }
                current = new NodeRecord(type, name, ports, guid, desc, lineNo, new LinkedHashMap<>());
                nodes.put(name, current);
                continue;
            }
            Matcher g = GUID_LINE.matcher(t);
            if (g.matches()) {
                long v = parseGuid(g.group(3), source, lineNo);
                boolean absolute = g.group(2).equals("=");
                if (g.group(1).equals("switchguid")) {
                    switchBase = absolute ? v : switchBase;
                    switchNext = absolute ? v : switchBase + v;
                } else if (!g.group(1).equals("rtguid")) {
                    caBase = absolute ? v : caBase;
                    caNext = absolute ? v : caBase + v;
                }
                continue;
            }
            if (IGNORED.matcher(t).matches()) {
                continue;
            }
            throw new FormatException(source, lineNo, "unrecognised line '" + Excerpt.bare(t)
                    + "' (expected a Switch/Hca/Ca line, a [port] line, a guid line or a # comment)");
        }
        if (nodes.isEmpty()) {
            throw new FormatException(source, Math.max(1, lines.lineNo()), "no nodes: the file has no Switch or Hca/Ca line "
                    + "(empty, or comments only), so it describes no fabric");
        }
        return build(nodes, source);
    }

    /**
     * A GUID as net files write it: {@code 0x} and up to 16 hex digits, or a decimal number,
     * unsigned (ibnetdiscover prints GUIDs of 2^63 and more, e.g. {@code 0xf452140300103640}).
     */
    private static long parseGuid(String text, String source, int lineNo) throws FormatException {
        try {
            boolean hex = text.startsWith("0x") || text.startsWith("0X");
            String digits = hex ? text.substring(2) : text;
            if (digits.isEmpty() || digits.length() > (hex ? 16 : 20)) {
                throw new NumberFormatException();
            }
            return Long.parseUnsignedLong(digits, hex ? 16 : 10);
        } catch (NumberFormatException e) {
            throw new FormatException(source, lineNo, "bad GUID '" + Excerpt.bare(text) + "': not a 64-bit number (0x and up to 16 hex digits)");
        }
    }

    private static PortRecord parsePort(String t, String source, int lineNo, NodeRecord node) throws FormatException {
        Matcher m = PORT.matcher(t);
        if (!m.matches()) {
            throw new FormatException(source, lineNo, "bad port line '" + Excerpt.bare(t) + "': expected [port] \"remote name\"[remote port]");
        }
        int port = parseInt(m.group(1), "port number", source, lineNo);
        if (port < 1 || port > node.ports()) {
            throw new FormatException(source, lineNo, "port " + port + " is out of range for \"" + node.name()
                    + "\", which has ports 1.." + node.ports());
        }
        int remotePort = m.group(4) == null ? 1 : parseInt(m.group(4), "remote port number", source, lineNo);
        Long portGuid = null;
        if (m.group(2) != null) {
            try {
                portGuid = Long.parseUnsignedLong(m.group(2).replaceFirst("^0[xX]", ""), 16);
            } catch (NumberFormatException e) {
                throw new FormatException(source, lineNo, "bad port GUID '" + Excerpt.bare(m.group(2)) + "'");
            }
        }
        return new PortRecord(port, m.group(3), remotePort, portGuid, lineNo);
    }

    private static int parseInt(String s, String what, String source, int lineNo) throws FormatException {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new FormatException(source, lineNo, "bad " + what + " '" + Excerpt.bare(s) + "': not a whole number");
        }
    }

    private static Fabric build(Map<String, NodeRecord> nodes, String source) throws FormatException {
        for (NodeRecord n : nodes.values()) {
            for (PortRecord p : n.portLines().values()) {
                NodeRecord remote = nodes.get(p.remote());
                if (remote == null) {
                    throw new FormatException(source, p.line(), "port " + p.port() + " of \"" + n.name()
                            + "\" is cabled to unknown node \"" + Excerpt.bare(p.remote()) + "\"");
                }
                if (remote == n) {
                    // a cable from a node back into itself: no fabric has one (a port cannot hear its own
                    // hello, and a loop from one port of a switch to another routes nothing); refused, not skipped
                    throw new FormatException(source, p.line(), p.remotePort() == p.port()
                            ? "port " + p.port() + " of \"" + n.name() + "\" is cabled to itself"
                            : "port " + p.port() + " of \"" + n.name() + "\" is cabled to its own port " + p.remotePort()
                                    + ": a loopback cable, which real fabrics do not have; remove both lines");
                }
                if (p.remotePort() < 1 || p.remotePort() > remote.ports()) {
                    throw new FormatException(source, p.line(), "remote port " + p.remotePort() + " is out of range for \""
                            + remote.name() + "\", which has ports 1.." + remote.ports() + " (line " + remote.line() + ")");
                }
                PortRecord back = remote.portLines().get(p.remotePort());
                if (back == null) {
                    throw new FormatException(source, p.line(), "link \"" + n.name() + "\"[" + p.port() + "] -> \""
                            + remote.name() + "\"[" + p.remotePort() + "] is listed on one side only: \"" + remote.name()
                            + "\" (line " + remote.line() + ") has no line for port " + p.remotePort());
                }
                if (!back.remote().equals(n.name()) || back.remotePort() != p.port()) {
                    throw new FormatException(source, p.line(), "link \"" + n.name() + "\"[" + p.port() + "] -> \""
                            + remote.name() + "\"[" + p.remotePort() + "] is inconsistent: line " + back.line()
                            + " cables \"" + remote.name() + "\"[" + p.remotePort() + "] to \"" + Excerpt.bare(back.remote()) + "\"["
                            + back.remotePort() + "]");
                }
                if (n.type() == NodeType.CA && remote.type() == NodeType.CA) {
                    throw new FormatException(source, p.line(), "CA \"" + n.name() + "\" is cabled to CA \""
                            + remote.name() + "\": back-to-back adapters without a switch are not supported");
                }
            }
        }
        checkGuids(nodes, source);
        FabricBuilder b = new FabricBuilder("file:" + source);
        Map<String, Integer> ids = new HashMap<>();
        for (NodeRecord n : nodes.values()) {
            try {
                int id = b.addNode(n.type(), n.name(), n.ports(), n.guid());
                b.description(id, n.description());
                ids.put(n.name(), id);
            } catch (IllegalArgumentException e) { // the checks above leave the builder none to find; its own, at the line
                throw new FormatException(source, n.line(), e.getMessage());
            }
        }
        for (NodeRecord n : nodes.values()) {
            int id = ids.get(n.name());
            for (PortRecord p : n.portLines().values()) {
                if (p.portGuid() != null && n.type() == NodeType.CA) {
                    b.portGuid(id, p.port(), p.portGuid());
                }
                int rid = ids.get(p.remote());
                if (id < rid) {
                    try {
                        b.link(id, p.port(), rid, p.remotePort());
                    } catch (IllegalArgumentException e) {
                        throw new FormatException(source, p.line(), e.getMessage());
                    }
                }
            }
        }
        return b.build();
    }

    /**
     * Every node GUID once, and every cabled CA port's GUID (the key of its LID in {@code guid2lid},
     * as a switch's node GUID is) once, none of them 0: two ports with one GUID would share a LID.
     * A CA's port may carry its own node's GUID (some adapters do), no other node's. Refused at the
     * line of the second holder, naming the first.
     */
    private static void checkGuids(Map<String, NodeRecord> nodes, String source) throws FormatException {
        Map<Long, String> nodeGuids = new HashMap<>();
        for (NodeRecord n : nodes.values()) {
            String first = nodeGuids.putIfAbsent(n.guid(), n.name());
            if (first != null) {
                throw new FormatException(source, n.line(), "\"" + n.name() + "\" has GUID " + Guids.format(n.guid())
                        + ", the GUID of \"" + first + "\" (line " + nodes.get(first).line() + "): every node needs its own");
            }
        }
        Map<Long, String> portGuids = new HashMap<>();
        for (NodeRecord n : nodes.values()) {
            if (n.type() != NodeType.CA) {
                continue;
            }
            for (PortRecord p : n.portLines().values()) {
                long guid = p.portGuid() != null ? p.portGuid() : n.guid() + p.port();
                int line = p.portGuid() != null ? p.line() : n.line();
                String port = "port " + p.port() + " of \"" + n.name() + "\"";
                if (guid == 0) {
                    throw new FormatException(source, line, port + " has GUID 0, which is no GUID (IBA)");
                }
                String node = nodeGuids.get(guid);
                String first = portGuids.putIfAbsent(guid, port);
                if ((node != null && !node.equals(n.name())) || first != null) {
                    throw new FormatException(source, line, port + " has GUID " + Guids.format(guid) + ", the GUID of "
                            + (first != null ? first : "\"" + node + "\" (line " + nodes.get(node).line() + ")")
                            + ": two ports with one GUID would share a LID");
                }
            }
        }
    }

    /**
     * Writes a fabric as a {@code net} file that ibsim accepts: every node preceded by a GUID line
     * so that ibsim gives it the same GUID, every link on both of its ends.
     */
    public static void write(Fabric f, Writer out) throws IOException {
        out.write("# " + f.kind() + "\n");
        out.write("# switches=" + f.switchCount() + " cas=" + f.caCount() + " links=" + f.linkCount() + "\n");
        List<Integer> order = new ArrayList<>();
        for (int n = 0; n < f.nodeCount(); n++) {
            if (f.isSwitch(n)) {
                order.add(n);
            }
        }
        for (int n = 0; n < f.nodeCount(); n++) {
            if (!f.isSwitch(n)) {
                order.add(n);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int n : order) {
            sb.setLength(0);
            sb.append('\n');
            boolean sw = f.isSwitch(n);
            sb.append(sw ? "switchguid=" : "caguid=").append(String.format("0x%x", f.nodeGuid(n))).append('\n');
            sb.append(sw ? "Switch\t" : "Hca\t").append(f.portCount(n)).append(" \"").append(f.name(n)).append('"');
            if (!f.description(n).equals(f.name(n))) {
                sb.append("\t# \"").append(f.description(n)).append('"');
            }
            sb.append('\n');
            for (int p = 1; p <= f.portCount(n); p++) {
                int g = f.globalPort(n, p);
                int peer = f.peerNode(g);
                if (peer == Fabric.NONE) {
                    continue;
                }
                sb.append('[').append(p).append(']');
                if (!sw && f.portGuid(n, p) != f.nodeGuid(n) + p) {
                    sb.append('(').append(Long.toHexString(f.portGuid(n, p))).append(')');
                }
                sb.append("\t\"").append(f.name(peer)).append("\"[").append(f.peerPort(g)).append("]\n");
            }
            out.write(sb.toString());
        }
        out.flush();
    }
}
