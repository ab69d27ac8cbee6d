package org.fabriclab.routing.engine;

import java.util.Objects;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/** One routing run's input: the fabric, its LIDs, and the options. */
public record RoutingRequest(Fabric fabric, LidAssignment lids, RoutingOptions options) {
    public RoutingRequest {
        Objects.requireNonNull(fabric, "fabric");
        Objects.requireNonNull(lids, "lids");
        Objects.requireNonNull(options, "options");
    }
}
