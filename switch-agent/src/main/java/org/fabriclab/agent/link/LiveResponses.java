package org.fabriclab.agent.link;

import java.util.Arrays;
import org.fabriclab.routing.analysis.NoLoadLatency;

/**
 * The live hosts' modelled responses (the NIC's round trips, {@code NicCounters}): when a host
 * receives a data packet its core answers it ({@code HostCore.Output#respond}), and this carries
 * the answer to the packet's sender, the host of its source LID, with the time it comes back: the
 * delivery plus a header-only frame's time from the receiver to the sender through the empty
 * fabric ({@link NoLoadLatency}). No frame is sent: the emulated hosts all run in this JVM (switches
 * may run elsewhere, hosts never do), so the receiver's event loop hands the sample to the
 * sender's ({@link LiveHost#responseCame}), which counts it when its time has come.
 *
 * <p>Hosts are found by LID, learnt on first use from their port's LID (the manager assigns them;
 * it keeps a host's LID across sweeps and restarts) and kept. Safe from every event loop.
 */
public final class LiveResponses {
    /** A host and its endpoint number in the fabric. */
    private record Host(LiveHost host, int endpoint) {
    }

    private final NoLoadLatency times;
    private final LiveHost[] byEndpoint;
    /** Per LID, its host once learnt (null: not yet, or none); replaced whole when it grows. */
    private volatile Host[] byLid = new Host[0];

    private LiveResponses(NoLoadLatency times, LiveHost[] byEndpoint) {
        this.times = times;
        this.byEndpoint = byEndpoint.clone();
    }

    /**
     * Lets the hosts of {@code byEndpoint} (per endpoint number of the fabric, its host, or null for
     * an endpoint no live host serves) answer one another, responses timed by {@code times}.
     */
    public static LiveResponses install(NoLoadLatency times, LiveHost[] byEndpoint) {
        LiveResponses r = new LiveResponses(times, byEndpoint);
        for (int e = 0; e < byEndpoint.length; e++) {
            if (byEndpoint[e] != null) {
                byEndpoint[e].responses(r, e);
            }
        }
        return r;
    }

    /**
     * Endpoint {@code from}'s host received, at model time {@code now}, the data packet number
     * {@code seq} of the host of {@code slid}, which took {@code hops} links between switches: that
     * host gets the response, due back at {@code now} plus the response's time.
     */
    void respond(int from, int slid, int seq, int hops, long now) {
        Host to = host(slid);
        if (to == null) {
            return;
        }
        long back = times.ns(from, to.endpoint);
        if (back != NoLoadLatency.UNREACHABLE) {
            to.host.responseCame(seq, hops, now + back);
        }
    }

    private Host host(int lid) {
        Host[] t = byLid;
        Host h = lid >= 0 && lid < t.length ? t[lid] : null;
        return h != null ? h : learn(lid);
    }

    /** The host whose port has {@code lid} now, kept for the next time; null if none has it. */
    private synchronized Host learn(int lid) {
        Host[] t = byLid;
        if (lid >= 0 && lid < t.length && t[lid] != null) {
            return t[lid];
        }
        for (int e = 0; e < byEndpoint.length; e++) {
            LiveHost h = byEndpoint[e];
            if (h != null && lid > 0 && h.management().port(1).lid() == lid) {
                Host[] grown = Arrays.copyOf(t, Math.max(t.length, lid + 1));
                grown[lid] = new Host(h, e);
                byLid = grown;
                return grown[lid];
            }
        }
        return null;
    }
}
