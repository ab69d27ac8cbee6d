package org.fabriclab.routing.engine.file;

import java.io.IOException;
import java.io.Writer;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * Writes forwarding tables as OpenSM's {@code opensm-lfts.dump}, the format {@link FileEngine}
 * replays ({@link org.fabriclab.routing.format.LftDump} reads it). Apart from the reader so that
 * the format package stays below the engine framework.
 */
public final class LftDumpWriter {
    private LftDumpWriter() {
    }

    /** Writes every switch's table in OpenSM's format, switches in fabric order. */
    public static void write(ForwardingTables t, Writer out) throws IOException {
        Fabric f = t.fabric();
        LidAssignment lids = t.lids();
        String[] owner = new String[lids.maxLid() + 1];
        for (int lid = 1; lid <= lids.maxLid(); lid++) {
            int e = lids.endpointOfLid(lid);
            int s = lids.switchOfLid(lid);
            if (e != Fabric.NONE) {
                int g = f.endpointPort(e);
                int node = f.nodeOfGlobalPort(g);
                owner[lid] = String.format("Channel Adapter portguid 0x%016x: '%s'",
                        f.portGuid(node, g - f.portBase(node) + 1), f.description(node));
            } else if (s != Fabric.NONE) {
                int node = f.switchNode(s);
                owner[lid] = String.format("Switch portguid 0x%016x: '%s'", f.nodeGuid(node), f.description(node));
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int s = 0; s < f.switchCount(); s++) {
            int node = f.switchNode(s);
            sb.setLength(0);
            sb.append(String.format("Unicast lids [0-%d] of switch Lid %d guid 0x%016x ('%s'):%n",
                    lids.maxLid(), lids.switchLid(s), f.nodeGuid(node), f.description(node)));
            for (int lid = 0; lid <= lids.maxLid(); lid++) {
                int port = t.port(s, lid);
                if (port == ForwardingTables.NO_PATH) {
                    continue;
                }
                sb.append(String.format("0x%04x %03d # %s%n", lid, port,
                        owner[lid] == null ? "unknown node and type" : owner[lid]));
            }
            sb.append(lids.maxLid()).append(" lids dumped\n");
            out.write(sb.toString());
        }
        out.flush();
    }
}
