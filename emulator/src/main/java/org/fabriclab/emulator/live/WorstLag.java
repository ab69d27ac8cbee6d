package org.fabriclab.emulator.live;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.mgmt.ManagedNode;

/**
 * How far an emulated fabric ran behind its model time over a recent interval, as its fidelity
 * monitor measures it: the worst lag of any node's event loop or link (model ns), the bound a
 * faithful emulation keeps within, and where the worst was. What {@code auto} decides D by, and
 * what a live measurement checks before it trusts its figures.
 *
 * @param lagNs   the worst lag, model ns (0 when nothing lagged)
 * @param boundNs the lag within which the fabric counts as faithful (a link's catch-up window)
 * @param where   the node and its loop or port, or {@code none}
 */
public record WorstLag(long lagNs, long boundNs, String where) {
    /** True if no loop or link lagged beyond the bound: a late frame then cost its link no rate. */
    public boolean faithful() {
        return lagNs <= boundNs;
    }

    /**
     * The worst over {@code nodes} (in this JVM, read on their loops) over the last {@code
     * windowMillis} of wall time; a loop that cannot answer within a second counts as that late.
     */
    static WorstLag of(List<LiveNode> nodes, long windowMillis, ModelClock clock) {
        WorstLag w = new WorstLag(0, Long.MAX_VALUE, "none");
        for (LiveNode n : nodes) {
            ManagedNode.EmulationState s;
            try {
                s = n.management().emulation().state(windowMillis).get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (ExecutionException | TimeoutException e) {
                s = new ManagedNode.EmulationState(clock.dilation(), 0, clock.modelNanos(1_000_000_000L), 0, 0, w.boundNs(), 0, 0);
            }
            w = w.worse(s.loopLagNs(), s.boundNs(), n.name() + " event loop").worse(s.linkLagNs(), s.boundNs(),
                    n.name() + " port " + s.linkLagPort());
        }
        return w;
    }

    /** This, or a lag of {@code ns} at {@code where} if it is worse; the tighter of the two bounds. */
    WorstLag worse(long ns, long bound, String at) {
        long b = Math.min(boundNs, bound);
        return ns > lagNs ? new WorstLag(ns, b, at) : new WorstLag(lagNs, b, where);
    }
}
