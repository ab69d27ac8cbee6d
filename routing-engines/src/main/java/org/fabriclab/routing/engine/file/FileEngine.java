package org.fabriclab.routing.engine.file;

import java.util.Map;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.format.LftDump;

/**
 * OpenSM's {@code file} engine: replays tables from an {@code opensm-lfts.dump} (golden tests,
 * field problems, tables computed elsewhere). Tables are matched to switches by GUID; where an
 * entry names its destination's port GUID, the LID is re-mapped to the LID that port has now, so a
 * dump survives a LID reassignment. The dump comes parsed in {@code RoutingOptions.lftDump()}.
 */
public final class FileEngine implements RoutingEngine {
    public static final String NAME = "file";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ForwardingTables route(RoutingRequest request) throws RoutingException {
        LftDump dump = request.options().lftDump().orElseThrow(() -> new RoutingException(NAME,
                "no LFT dump given: pass the file with --lfts FILE (OpenSM's opensm-lfts.dump format)"));
        Fabric f = request.fabric();
        Map<Long, Integer> lidOfGuid = request.lids().byPortGuid(f);
        ForwardingTables.Builder out = ForwardingTables.builder(f, request.lids());
        boolean[] seen = new boolean[f.switchCount()];
        for (LftDump.SwitchTable t : dump.tables()) {
            int node = f.nodeByGuid(t.guid()).orElse(Fabric.NONE);
            if (node == Fabric.NONE || !f.isSwitch(node)) {
                throw new RoutingException(NAME, dump.source() + ":" + t.line() + ": switch GUID "
                        + Guids.format(t.guid()) + " ('" + t.name() + "') is not a switch of this fabric");
            }
            int s = f.switchIndex(node);
            seen[s] = true;
            for (LftDump.Entry e : t.entries()) {
                int lid = e.lid();
                if (e.destinationPortGuid() != 0) {
                    Integer now = lidOfGuid.get(e.destinationPortGuid());
                    if (now == null) {
                        throw new RoutingException(NAME, dump.source() + ":" + e.line() + ": destination port GUID "
                                + Guids.format(e.destinationPortGuid()) + " is not in this fabric");
                    }
                    lid = now;
                }
                if (lid == 0) {
                    continue;
                }
                if (lid > request.lids().maxLid()) {
                    throw new RoutingException(NAME, dump.source() + ":" + e.line() + ": LID " + lid
                            + " is beyond the fabric's highest LID " + request.lids().maxLid());
                }
                if (e.port() > f.portCount(node)) {
                    throw new RoutingException(NAME, dump.source() + ":" + e.line() + ": port " + e.port()
                            + " is out of range for switch \"" + f.name(node) + "\" (ports 0.." + f.portCount(node) + ")");
                }
                out.set(s, lid, e.port());
            }
        }
        for (int s = 0; s < seen.length; s++) {
            if (!seen[s]) {
                throw new RoutingException(NAME, dump.source() + " has no table for switch \""
                        + f.name(f.switchNode(s)) + "\" (" + Guids.format(f.nodeGuid(f.switchNode(s))) + ")");
            }
        }
        return out.build(NAME);
    }
}
