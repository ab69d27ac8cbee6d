package org.fabriclab.agent.core;

/**
 * A switch's ECN marking of an output queue, DCQCN's RED-like rule (Zhu et al., "Congestion Control
 * for Large-Scale RDMA Deployments", SIGCOMM 2015, section 3): a packet leaving a queue of {@code q}
 * bytes is marked congestion-experienced with probability 0 up to {@code kmin}, rising linearly to
 * {@code pmax} at {@code kmax}, and 1 above {@code kmax}. Only ECN-capable packets ({@link
 * PacketPool#ECT}) are marked. Immutable.
 *
 * @param kminBytes queue below which nothing is marked (DCQCN: 5 KB)
 * @param kmaxBytes queue above which every packet is marked (DCQCN: 200 KB)
 * @param pmax      the marking probability at {@code kmax} (DCQCN: 1%)
 */
public record EcnMarking(long kminBytes, long kmaxBytes, double pmax) {
    /** DCQCN's parameters, as the RL-CC paper's DCQCN baseline runs them. */
    public static final EcnMarking DCQCN = new EcnMarking(5_000, 200_000, 0.01);

    /** @throws IllegalArgumentException naming the value out of range */
    public EcnMarking {
        if (kminBytes < 0 || kmaxBytes <= kminBytes) {
            throw new IllegalArgumentException("ECN thresholds need 0 <= kmin < kmax, not kmin " + kminBytes + " and kmax " + kmaxBytes + " bytes");
        }
        if (!(pmax > 0 && pmax <= 1)) {
            throw new IllegalArgumentException("ECN pmax " + pmax + " is not in (0, 1]");
        }
    }

    /** As a switch process's {@code --ecn} takes it: {@code KMIN:KMAX:PMAX}; {@link #parse} reads it back. */
    public String spec() {
        return kminBytes + ":" + kmaxBytes + ":" + pmax;
    }

    /**
     * {@code KMIN:KMAX:PMAX} ({@link #spec}) as a marking rule.
     *
     * @throws IllegalArgumentException saying what is wrong with it (the caller names the option)
     */
    public static EcnMarking parse(String spec) {
        String[] parts = spec.split(":", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("is not KMIN:KMAX:PMAX (bytes, bytes, a probability; DCQCN's: " + DCQCN.spec() + ")");
        }
        long kmin;
        long kmax;
        double pmax;
        try {
            kmin = Long.parseLong(parts[0].trim());
            kmax = Long.parseLong(parts[1].trim());
            pmax = Double.parseDouble(parts[2].trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("has a part that is not a number (KMIN and KMAX whole bytes, PMAX a probability)");
        }
        return new EcnMarking(kmin, kmax, pmax);
    }

    /** The probability of marking a packet leaving a queue of {@code queueBytes}. */
    public double probability(long queueBytes) {
        if (queueBytes <= kminBytes) {
            return 0;
        }
        if (queueBytes > kmaxBytes) {
            return 1;
        }
        return pmax * (queueBytes - kminBytes) / (kmaxBytes - kminBytes);
    }
}
