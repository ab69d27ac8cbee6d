package org.fabriclab.manager.sweep;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.SourceRouteEntry;
import org.fabriclab.proto.v1.WriteSourceRoutesRequest;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.torus.SourceRoutes;

/**
 * Source routes (Angara): every channel adapter gets, per destination host on another switch, the
 * route between their switches, which it writes into each packet; with an engine that makes none,
 * adapters that had routes get an empty table back (the switches' LFTs route again).
 *
 * <p>Thread-safety: used by the sweep thread only.
 */
final class SourceRoutePush {
    private final FanOut fanOut;
    private final long mKey;
    /** Whether the last push gave the adapters source routes (the next one without must clear them). */
    private boolean pushed;

    SourceRoutePush(FanOut fanOut, long mKey) {
        this.fanOut = fanOut;
        this.mKey = mKey;
    }

    void push(Discovery.Result d, ForwardingTables t) throws SweepException, InterruptedException {
        SourceRoutes sr = t.sourceRoutes();
        if (sr == null && !pushed) {
            return;
        }
        Fabric f = t.fabric();
        // each endpoint's switch as a member of the routes' node set (-1: not in it, or no routes)
        int[] member = new int[f.endpointCount()];
        for (int e = 0; e < member.length; e++) {
            member[e] = sr == null ? -1 : sr.indexOf(sr.torus().torusNode(f.endpointSwitch(e)));
        }
        List<DiscoveredNode> adapters = new ArrayList<>();
        Map<Long, WriteSourceRoutesRequest> requests = new HashMap<>();
        for (int e = 0; e < f.endpointCount(); e++) {
            DiscoveredNode dn = d.byGuid().get(f.nodeGuid(f.endpointNode(e)));
            if (dn == null || requests.containsKey(dn.info().getNodeGuid())) {
                continue;
            }
            WriteSourceRoutesRequest.Builder w = WriteSourceRoutesRequest.newBuilder().setMKey(mKey);
            int from = member[e];
            for (int e2 = 0; e2 < f.endpointCount() && from >= 0; e2++) {
                int to = member[e2];
                if (to >= 0 && to != from && !sr.unroutable(from, to)) {
                    w.addRoutes(SourceRouteEntry.newBuilder().setDlid(t.lids().endpointLid(e2))
                            .setDirections(ByteString.copyFrom(sr.directions(from, to))));
                }
            }
            requests.put(dn.info().getNodeGuid(), w.build());
            adapters.add(dn);
        }
        HeavySweep.requireAll(fanOut.run(adapters, FanOut.Retry.NONE,
                dn -> fanOut.stub(dn.endpoint()).writeSourceRoutes(requests.get(dn.info().getNodeGuid()))), "writing source routes");
        pushed = sr != null;
    }
}
