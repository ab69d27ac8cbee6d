package org.fabriclab.routing.fabric;

import java.util.List;

/** Test access to NodeSet's range expansion. */
public final class NodeSetAccess {
    private NodeSetAccess() {
    }

    public static List<String> expand(String item) {
        return NodeSet.expand(item);
    }
}
