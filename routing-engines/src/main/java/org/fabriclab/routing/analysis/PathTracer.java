package org.fabriclab.routing.analysis;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;

/** Follows one route through the forwarding tables, hop by hop, as a packet would. */
public final class PathTracer {
    /** One hop: the node a packet leaves and the port it leaves by. */
    public record Hop(int node, int port) {
    }

    /** A traced route: its hops (source CA first), and null or why it did not arrive. */
    public record Path(List<Hop> hops, String failure) {
        public boolean delivered() {
            return failure == null;
        }
    }

    private PathTracer() {
    }

    /** Traces the route from endpoint {@code src} to endpoint {@code dst}. */
    public static Path trace(ForwardingTables t, int src, int dst) {
        Fabric f = t.fabric();
        int lid = t.lids().endpointLid(dst);
        List<Hop> hops = new ArrayList<>();
        int g = f.endpointPort(src);
        int node = f.nodeOfGlobalPort(g);
        hops.add(new Hop(node, g - f.portBase(node) + 1));
        int cur = f.peerNode(g);
        int limit = f.switchCount() + 1;
        while (limit-- > 0) {
            if (!f.isSwitch(cur)) {
                return cur == f.endpointNode(dst) ? new Path(hops, null)
                        : new Path(hops, "delivered to the wrong CA \"" + f.name(cur) + "\"");
            }
            int s = f.switchIndex(cur);
            int port = t.port(s, lid);
            String failure = RouteAnalyzer.checkPort(f, cur, port, lid);
            if (failure != null) {
                return new Path(hops, failure);
            }
            hops.add(new Hop(cur, port));
            cur = f.peerNode(f.globalPort(cur, port));
        }
        return new Path(hops, "loop: the route visits more switches than the fabric has");
    }
}
