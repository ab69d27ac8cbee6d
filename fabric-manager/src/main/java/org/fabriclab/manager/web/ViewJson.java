package org.fabriclab.manager.web;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * The fabric view's three answers, as JSON. Sized for the 18-ary 3-tree (972 switches, 11,664
 * inter-switch links): per-node and per-link figures are parallel arrays of numbers, never an
 * object per link; utilisation goes as integer parts per million. The shapes are described in
 * {@code fabric-manager/README.md}.
 */
final class ViewJson {
    /** Utilisation is sent in parts per million: 0.2% is 2000, exact enough to colour and to read. */
    static final double PPM = 1e6;
    /** Congested outputs listed with their input shares in a load answer, the most utilised first. */
    static final int TOP_CONGESTED = 20;

    private ViewJson() {
    }

    /** {@code /api/fabric}: the drawn nodes, their positions and the links. */
    static String fabric(FabricPicture p, long version, String state, String engine) {
        JsonWriter j = new JsonWriter(64 + p.nodes.length * 40 + p.linkCount() * 20);
        j.open().member("version", version).member("state", state).member("engine", engine).member("layout", p.kind)
                .member("hostsShown", p.hostsShown).member("hostsDrawable", p.fabric.caCount() <= FabricView.MAX_HOSTS_DRAWN)
                .member("switchCount", p.switchCount())
                .member("hostCount", p.fabric.caCount());
        j.name("names").array();
        for (int v : p.nodes) {
            j.value(p.fabric.name(v));
        }
        j.end();
        j.name("x");
        coordinates(j, p.x);
        j.name("y");
        coordinates(j, p.y);
        int[] level = new int[p.nodes.length];
        int[] group = new int[p.nodes.length];
        for (int i = 0; i < p.nodes.length; i++) {
            level[i] = p.layout.level(p.nodes[i]);
            group[i] = p.layout.group(p.nodes[i]);
        }
        j.name("level").values(level).name("group").values(group).name("hosts").values(p.hosts);
        j.name("links").values(p.links).name("linkKind").values(p.linkKind);
        j.name("kinds").array();
        p.kinds.forEach(j::value);
        j.end();
        return j.close().toString();
    }

    /** Positions in the unit square to 1/10,000: finer than any screen. */
    private static void coordinates(JsonWriter j, double[] v) {
        j.array();
        for (double c : v) {
            j.value(Math.round(c * 10_000) / 10_000.0);
        }
        j.end();
    }

    /**
     * {@code /api/load}: per link direction (A to B at {@code 2l}, B to A at {@code 2l+1}) the
     * utilisation in ppm, -1 where not polled yet; with hosts collapsed, per switch the highest
     * utilisation of its host links either way; the congested directions; and the most utilised
     * congested outputs (drawn or not) with their input shares.
     */
    static String load(FabricPicture p, Map<String, PortReading> readings, long version, String state, long tableVersion) {
        JsonWriter j = new JsonWriter(64 + p.linkCount() * 16);
        j.open().member("version", version).member("state", state).member("tableVersion", tableVersion).member("polled", readings.size());
        int[] u = new int[2 * p.linkCount()];
        List<Integer> congested = new ArrayList<>();
        for (int l = 0; l < p.linkCount(); l++) {
            for (int d = 0; d < 2; d++) {
                PortReading r = readings.get(PortReading.key(p.fabric.name(p.nodes[p.links[4 * l + 2 * d]]), p.links[4 * l + 2 * d + 1]));
                u[2 * l + d] = ppm(r);
                if (r != null && r.congested()) {
                    congested.add(2 * l + d);
                }
            }
        }
        j.name("u").values(u);
        if (!p.hostsShown) {
            j.name("hostU").values(hostUtilisation(p, readings));
        }
        j.name("congested").values(congested.stream().mapToInt(Integer::intValue).toArray());
        j.name("top").array();
        readings.values().stream().filter(PortReading::congested)
                .sorted(Comparator.comparingDouble(PortReading::utilisation).reversed().thenComparing(PortReading::node)
                        .thenComparingInt(PortReading::port))
                .limit(TOP_CONGESTED).forEach(r -> {
                    j.open().member("node", r.node()).member("port", r.port());
                    Fabric f = p.fabric;
                    var v = f.nodeByName(r.node());
                    if (v.isPresent() && r.port() <= f.portCount(v.get()) && f.peerNode(f.globalPort(v.get(), r.port())) != Fabric.NONE) {
                        j.member("peer", f.name(f.peerNode(f.globalPort(v.get(), r.port()))));
                    }
                    j.member("u", r.utilisation()).member("fairness", r.fairness());
                    shares(j, r);
                    j.close();
                });
        j.end();
        return j.close().toString();
    }

    private static int ppm(PortReading r) {
        return r == null ? -1 : (int) Math.round(Math.max(0, Math.min(1, r.utilisation())) * PPM);
    }

    /** Per drawn switch, the highest utilisation (ppm) of its host links in either direction, -1 if none polled. */
    private static int[] hostUtilisation(FabricPicture p, Map<String, PortReading> readings) {
        Fabric f = p.fabric;
        int[] out = new int[p.switchCount()];
        for (int i = 0; i < p.switchCount(); i++) {
            int v = p.nodes[i];
            int most = -1;
            for (int port = 1; port <= f.portCount(v); port++) {
                int g = f.globalPort(v, port);
                int peer = f.peerNode(g);
                if (peer != Fabric.NONE && !f.isSwitch(peer)) {
                    most = Math.max(most, ppm(readings.get(PortReading.key(f.name(v), port))));
                    most = Math.max(most, ppm(readings.get(PortReading.key(f.name(peer), f.peerPort(g)))));
                }
            }
            out[i] = most;
        }
        return out;
    }

    private static void shares(JsonWriter j, PortReading r) {
        j.name("shares").array();
        for (int k = 0; k < r.inputs().length; k++) {
            j.array().value(r.inputs()[k]).value(r.shares()[k]).end();
        }
        j.end();
    }

    /**
     * {@code /api/node}: a node's place, each linked port's peer, counters, congestion and (a
     * switch's) number of LIDs its table sends out of it; with {@code port}, the destinations whose
     * entries use that port, at most {@code limit} of them.
     *
     * @param tables the routing outcome's tables for {@code fabric}, or null before the first routing
     */
    static String node(FabricPicture p, ForwardingTables tables, Map<String, PortReading> readings, int v, int port, int limit) {
        Fabric f = p.fabric;
        boolean sw = f.isSwitch(v);
        int[] routes = sw && tables != null ? routeCounts(tables, f.switchIndex(v), f.portCount(v)) : null;
        JsonWriter j = new JsonWriter(1024);
        j.open().member("name", f.name(v)).member("type", sw ? "switch" : "host").member("level", p.layout.level(v))
                .member("group", p.layout.group(v));
        int[] c = p.layout.coordinates(v);
        j.name("coordinates");
        if (c == null) {
            j.value((String) null);
        } else {
            j.values(c);
        }
        if (tables != null) {
            j.member("lid", tables.lids().lidOf(f, v, sw ? 0 : firstLinked(f, v)));
        }
        j.name("ports").array();
        for (int q = 1; q <= f.portCount(v); q++) {
            int g = f.globalPort(v, q);
            if (f.peerNode(g) == Fabric.NONE) {
                continue;
            }
            j.open().member("port", q).member("peer", f.name(f.peerNode(g))).member("peerPort", f.peerPort(g))
                    .member("kind", p.layout.linkKind(v, q));
            PortReading r = readings.get(PortReading.key(f.name(v), q));
            if (r != null) {
                j.member("u", r.utilisation()).member("xmitBytes", r.xmitBytes()).member("xmitPkts", r.xmitPkts())
                        .member("xmitWaitNs", r.xmitWaitNs()).member("discards", r.discards())
                        .member("rcvErrors", r.rcvErrors()).member("congested", r.congested())
                        .member("fairness", r.fairness());
                shares(j, r);
            }
            if (routes != null) {
                j.member("routes", routes[q]);
            }
            j.close();
        }
        j.end();
        if (port > 0 && sw && tables != null) {
            routes(j, f, tables, f.switchIndex(v), port, limit);
        }
        return j.close().toString();
    }

    private static int firstLinked(Fabric f, int v) {
        for (int q = 1; q <= f.portCount(v); q++) {
            if (f.peerNode(f.globalPort(v, q)) != Fabric.NONE) {
                return q;
            }
        }
        return 1;
    }

    /** Per port of switch {@code s}, how many LIDs its table sends out of it. */
    private static int[] routeCounts(ForwardingTables t, int s, int ports) {
        int[] count = new int[ports + 1];
        for (int lid = 1; lid < t.size(); lid++) {
            int out = t.port(s, lid);
            if (out >= 1 && out <= ports) {
                count[out]++;
            }
        }
        return count;
    }

    /** The destinations (host or switch names) whose LFT entry on switch {@code s} is {@code port}. */
    private static void routes(JsonWriter j, Fabric f, ForwardingTables t, int s, int port, int limit) {
        LidAssignment lids = t.lids();
        int count = 0;
        j.name("routes").open().member("port", port).name("destinations").array();
        for (int lid = 1; lid < t.size(); lid++) {
            if (t.port(s, lid) != port) {
                continue;
            }
            if (count++ < limit) {
                int e = lids.endpointOfLid(lid);
                int sw = lids.switchOfLid(lid);
                j.value(e != Fabric.NONE ? f.endpointName(e) : sw != Fabric.NONE ? f.name(f.switchNode(sw)) : "lid" + lid);
            }
        }
        j.end().member("count", count).member("truncated", count > limit).close();
    }
}
