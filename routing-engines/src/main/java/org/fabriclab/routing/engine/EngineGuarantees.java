package org.fabriclab.routing.engine;

/**
 * What an engine promises about the tables it makes, as data the daemon's validation and the
 * tools read instead of knowing engines by name (BookSim's routing functions return their VC
 * ranges the same way).
 *
 * @param deadlockFree true if the engine promises that its routes cannot deadlock on the lanes it
 *                     uses: the daemon refuses tables whose channel dependencies (per lane; the
 *                     source routes' for a source-routing engine) have a cycle
 * @param lanes        the data VLs the engine's tables may need on every switch (1 for one lane);
 *                     the daemon refuses a fabric whose switches report fewer
 * @param sourceRoutes true if the engine gives hosts source routes (the switches forward by the
 *                     route in each packet; their LFTs deliver the last hop)
 */
public record EngineGuarantees(boolean deadlockFree, int lanes, boolean sourceRoutes) {
    /** An engine that promises nothing beyond reachability, on one lane, without source routes. */
    public static final EngineGuarantees NONE = new EngineGuarantees(false, 1, false);
    /** Deadlock-free on one lane. */
    public static final EngineGuarantees DEADLOCK_FREE = new EngineGuarantees(true, 1, false);

    public EngineGuarantees {
        if (lanes < 1 || lanes > 15) {
            throw new IllegalArgumentException("an engine needs 1..15 data VLs, not " + lanes);
        }
    }

    /** The data VLs tables {@code t} need: the engine's promise, its path lanes, its AR lane turns and a Dragonfly algorithm's VCs, the most of them. */
    public int lanesNeeded(ForwardingTables t) {
        int ar = t.ar() == null ? 1 : t.ar().laneCount();
        int dragonfly = t.dragonfly() == null ? 1 : t.dragonfly().algorithm().vcs();
        return Math.max(Math.max(lanes, dragonfly), Math.max(t.lanes().laneCount(), ar));
    }

    /** In words, for listings: {@code deadlock-free, 2 lanes, source routes}. */
    public String describe() {
        return (deadlockFree ? "deadlock-free" : "no deadlock promise") + ", " + lanes + (lanes == 1 ? " lane" : " lanes")
                + (sourceRoutes ? ", source routes" : "");
    }
}
