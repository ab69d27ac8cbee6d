package org.fabriclab.routing.fabric;

/** The two kinds of node a fabric holds, as InfiniBand's NodeInfo:NodeType names them. */
public enum NodeType {
    /** A switch: forwards by its linear forwarding table; one LID, on management port 0. */
    SWITCH,
    /** A channel adapter (a host's NIC): one LID per port; never forwards. */
    CA
}
