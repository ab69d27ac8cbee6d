package org.fabriclab.routing.format;

import java.io.BufferedReader;
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
 * and {@code sysimgguid=} lines are accepted and ignored. A file that breaks a rule is refused
 * with a {@link FormatException} naming the file, the line and the problem; nothing half-built is
 * returned.
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
     * @param in     the file's text
     * @param source the file name, used in error messages and as the fabric's kind ({@code file:NAME})
     */
    public static Fabric read(Reader in, String source) throws IOException {
        BufferedReader r = new BufferedReader(in);
        Map<String, NodeRecord> nodes = new LinkedHashMap<>();
        long switchBase = FabricBuilder.DEFAULT_SWITCH_GUID_BASE;
        long switchNext = switchBase;
        long caBase = FabricBuilder.DEFAULT_CA_GUID_BASE;
        long caNext = caBase;
        NodeRecord current = null;
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (t.startsWith("[")) {
                if (current == null) {
                    throw new FormatException(source, lineNo, "port line before any Switch or Hca line: '" + t + "'");
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
                    throw new FormatException(source, lineNo, "port count " + ports + " of \"" + h.group(3)
                            + "\" is out of range 1.." + FabricBuilder.MAX_PORTS);
                }
                String name = h.group(3);
                if (name.isEmpty()) {
                    throw new FormatException(source, lineNo, "a node needs a non-empty name");
                }
                NodeRecord prev = nodes.get(name);
                if (prev != null) {
                    throw new FormatException(source, lineNo, "duplicate node name \"" + name
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
                current = new NodeRecord(type, name, ports, guid, desc, lineNo, new LinkedHashMap<>());
                nodes.put(name, current);
                continue;
            }
            Matcher g = GUID_LINE.matcher(t);
            if (g.matches()) {
                long v;
                try {
                    v = Long.decode(g.group(3));
                } catch (NumberFormatException e) {
                    throw new FormatException(source, lineNo, "bad GUID '" + g.group(3) + "'");
                }
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
            throw new FormatException(source, lineNo, "unrecognised line '" + t
                    + "' (expected a Switch/Hca/Ca line, a [port] line, a guid line or a # comment)");
        }
        return build(nodes, source);
    }

    private static PortRecord parsePort(String t, String source, int lineNo, NodeRecord node) throws FormatException {
        Matcher m = PORT.matcher(t);
        if (!m.matches()) {
            throw new FormatException(source, lineNo, "bad port line '" + t + "': expected [port] \"remote name\"[remote port]");
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
                throw new FormatException(source, lineNo, "bad port GUID '" + m.group(2) + "'");
            }
        }
        return new PortRecord(port, m.group(3), remotePort, portGuid, lineNo);
    }

    private static int parseInt(String s, String what, String source, int lineNo) throws FormatException {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new FormatException(source, lineNo, "bad " + what + " '" + s + "': not a whole number");
        }
    }

    private static Fabric build(Map<String, NodeRecord> nodes, String source) throws FormatException {
        for (NodeRecord n : nodes.values()) {
            for (PortRecord p : n.portLines().values()) {
                NodeRecord remote = nodes.get(p.remote());
                if (remote == null) {
                    throw new FormatException(source, p.line(), "port " + p.port() + " of \"" + n.name()
                            + "\" is cabled to unknown node \"" + p.remote() + "\"");
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
                            + " cables \"" + remote.name() + "\"[" + p.remotePort() + "] to \"" + back.remote() + "\"["
                            + back.remotePort() + "]");
                }
                if (n.type() == NodeType.CA && remote.type() == NodeType.CA) {
                    throw new FormatException(source, p.line(), "CA \"" + n.name() + "\" is cabled to CA \""
                            + remote.name() + "\": back-to-back adapters without a switch are not supported");
                }
            }
        }
        FabricBuilder b = new FabricBuilder("file:" + source);
        Map<String, Integer> ids = new HashMap<>();
        try {
            for (NodeRecord n : nodes.values()) {
                int id = b.addNode(n.type(), n.name(), n.ports(), n.guid());
                b.description(id, n.description());
                ids.put(n.name(), id);
            }
        } catch (IllegalArgumentException e) {
            throw new FormatException(source, 0, e.getMessage());
        }
        for (NodeRecord n : nodes.values()) {
            int id = ids.get(n.name());
            for (PortRecord p : n.portLines().values()) {
                if (p.portGuid() != null && n.type() == NodeType.CA) {
                    b.portGuid(id, p.port(), p.portGuid());
                }
                int rid = ids.get(p.remote());
                if (id < rid || (id == rid && p.port() < p.remotePort())) {
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
