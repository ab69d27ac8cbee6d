package org.fabriclab.manager.web;

/**
 * One directed link as the perf manager last polled it, from the output port {@code port} of
 * {@code node}: its counters, utilisation over the last interval (the perf manager's, in model time
 * once counters carry it), its discards (packets it dropped, PortXmitDiscards) and receive errors
 * (frames received on the port with an error and dropped, PortRcvErrors), and for a switch output
 * whether it was congested, Jain's index over its inputs and each input's share (inputs and shares
 * in the same order; empty unless congested).
 */
public record PortReading(String node, int port, double utilisation, long xmitBytes, long xmitPkts, long xmitWaitNs,
                          long discards, long rcvErrors, boolean congested, double fairness, int[] inputs, double[] shares) {
    public PortReading {
        if (inputs.length != shares.length) {
            throw new IllegalArgumentException(node + " port " + port + ": " + inputs.length + " inputs but " + shares.length + " shares");
        }
    }

    /** The key readings are found by: {@code node/port}. */
    public static String key(String node, int port) {
        return node + "/" + port;
    }
}
