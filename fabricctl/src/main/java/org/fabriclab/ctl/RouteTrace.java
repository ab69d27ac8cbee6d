package org.fabriclab.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.proto.v1.GetTopologyRequest;
import org.fabriclab.proto.v1.Hop;
import org.fabriclab.proto.v1.Topology;
import org.fabriclab.proto.v1.TopologyLink;
import org.fabriclab.proto.v1.TopologyNode;
import org.fabriclab.proto.v1.TraceRouteRequest;
import org.fabriclab.proto.v1.TraceRouteResponse;
import org.fabriclab.routing.format.Json;

/**
 * {@code fabricctl route SRC DST}: the route between two hosts as the running daemon's switches'
 * own forwarding tables give it (the daemon reads each switch's LFT block on the way). This is a
 * trace of what is installed, not a routing computation: offline routing ({@code route --topology})
 * is {@link RouteCommand}'s other path and shares no code with this one.
 */
final class RouteTrace {
    private RouteTrace() {
    }

    /** Traces {@code src} to {@code dst}; 0 if the packet arrives, 1 if not. */
    static int run(Daemon daemon, boolean json, String src, String dst, PrintWriter out) {
        TraceRouteResponse r = daemon.call(a -> a.traceRoute(TraceRouteRequest.newBuilder().setSource(src).setDestination(dst).build()));
        if (json) {
            out.println(Json.write(report(src, dst, r)));
        } else {
            printTable(out, src, dst, r, daemon.call(a -> a.getTopology(GetTopologyRequest.getDefaultInstance())));
        }
        out.flush();
        return r.getDelivered() ? 0 : 1;
    }

    /** The JSON report: {@code src, dst, hops [{node, port}] (the out port at each hop), delivered, failure}. */
    static Map<String, Object> report(String src, String dst, TraceRouteResponse r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("src", src);
        m.put("dst", dst);
        List<Object> hops = new ArrayList<>();
        r.getHopsList().forEach(h -> hops.add(RouteCommand.hop(h.getNode(), h.getPort())));
        m.put("hops", hops);
        m.put("delivered", r.getDelivered());
        if (!r.getDelivered()) {
            m.put("failure", r.getFailure());
        }
        return m;
    }

    /**
     * One row per hop, aligned: the node, its LID, the port the packet came in by and the one it
     * leaves by, and the node at the far end of that link (in ports and neighbours from the
     * daemon's topology; the destination's LID is the table entry every switch was asked for).
     */
    static void printTable(PrintWriter out, String src, String dst, TraceRouteResponse r, Topology t) {
        Map<String, Integer> lids = new HashMap<>();
        for (TopologyNode n : t.getNodesList()) {
            lids.put(n.getName(), n.getLid());
        }
        Map<String, String[]> peers = new HashMap<>(); // "node:port" -> {peer, peer port}
        for (TopologyLink l : t.getLinksList()) {
            peers.put(l.getNode() + ":" + l.getPort(), new String[] {l.getPeer(), Integer.toString(l.getPeerPort())});
            peers.put(l.getPeer() + ":" + l.getPeerPort(), new String[] {l.getNode(), Integer.toString(l.getPort())});
        }
        Integer dlid = lids.get(dst);
        out.printf("%s -> %s (DLID %s): %s%n", src, dst, dlid == null ? "?" : String.format("0x%04x", dlid),
                r.getDelivered() ? "delivered" : "not delivered: " + r.getFailure());
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"hop", "node", "lid", "in", "out", "next"});
        String inPort = "-";
        for (int i = 0; i < r.getHopsCount(); i++) {
            Hop h = r.getHops(i);
            String[] far = peers.get(h.getNode() + ":" + h.getPort());
            Integer lid = lids.get(h.getNode());
            rows.add(new String[] {Integer.toString(i), h.getNode(), lid == null ? "?" : String.format("0x%04x", lid), inPort,
                Integer.toString(h.getPort()), far == null ? "-" : far[0]});
            inPort = far == null ? "?" : far[1];
        }
        int[] width = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                width[c] = Math.max(width[c], row[c].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder sb = new StringBuilder();
            for (int c = 0; c < row.length; c++) {
                sb.append(c == 0 ? "" : "  ").append(String.format("%-" + width[c] + "s", row[c]));
            }
            out.println(sb.toString().stripTrailing());
        }
    }
}
