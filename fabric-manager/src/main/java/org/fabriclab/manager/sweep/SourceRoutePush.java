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
import org.fabriclab.routing.engine.HostInstall;
import org.fabriclab.routing.fabric.Fabric;

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
        HostInstall install = HostInstall.of(t);
        if (!install.hasRoutes() && !pushed) {
            return;
        }
        Fabric f = t.fabric();
        List<DiscoveredNode> adapters = new ArrayList<>();
        Map<Long, WriteSourceRoutesRequest> requests = new HashMap<>();
        // one copy of a route per pair of member switches, shared by their hosts' entries
        ByteString[][] route = new ByteString[install.members()][];
        for (int e = 0; e < f.endpointCount(); e++) {
            DiscoveredNode dn = d.byGuid().get(f.nodeGuid(f.endpointNode(e)));
            if (dn == null || requests.containsKey(dn.info().getNodeGuid())) {
                continue;
            }
            WriteSourceRoutesRequest.Builder w = WriteSourceRoutesRequest.newBuilder().setMKey(mKey);
            for (int e2 = 0; e2 < f.endpointCount(); e2++) {
                if (install.holds(e, e2)) {
                    int m = install.member(e);
                    ByteString[] from = route[m] != null ? route[m] : (route[m] = new ByteString[install.members()]);
                    int to = install.member(e2);
                    if (from[to] == null) {
                        from[to] = ByteString.copyFrom(install.directions(e, e2));
                    }
                    w.addRoutes(SourceRouteEntry.newBuilder().setDlid(install.dlid(e2)).setDirections(from[to]));
                }
            }
            requests.put(dn.info().getNodeGuid(), w.build());
            adapters.add(dn);
        }
        HeavySweep.requireAll(fanOut.run(adapters, FanOut.Retry.NONE,
                dn -> fanOut.stub(dn.endpoint()).writeSourceRoutes(requests.get(dn.info().getNodeGuid()))), "writing source routes");
        pushed = install.hasRoutes();
    }
}
