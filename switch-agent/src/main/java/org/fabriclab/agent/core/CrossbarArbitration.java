package org.fabriclab.agent.core;

/**
 * How a switch core chooses which waiting input buffer (input port and lane) goes next to an
 * output: into its output buffer (input-output queued) or onto its link (input-queued). Only the
 * heads of the input buffers compete (a head that cannot go holds back the packets behind it, in
 * either), and only those with room (an output buffer slot, or a credit downstream) on the lane
 * they are routed to.
 */
public enum CrossbarArbitration {
    /**
     * Per output, round-robin over (input port, lane): the first that can go, counting from the one
     * after the last this output took. The default.
     */
    ROUND_ROBIN("round-robin"),
    /**
     * Least recently used, over the whole switch: of those that can go, the (input port, lane) that
     * any output took least recently (never taken: the lowest input port, then lane). A buffer that
     * waits keeps its place and rises as others are served, one just served goes last, whatever
     * output took it. SST/Merlin's {@code merlin.xbar_arb_lru}, the crossbar arbitration of the
     * Q-adaptive paper's simulator (its {@code tests/dragonfly_q-adaptive.py}).
     */
    LRU("lru");

    private final String label;

    CrossbarArbitration(String label) {
        this.label = label;
    }

    /** The name options and reports use. */
    public String label() {
        return label;
    }
}
