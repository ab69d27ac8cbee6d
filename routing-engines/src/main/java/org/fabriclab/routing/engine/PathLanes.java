package org.fabriclab.routing.engine;

/**
 * The virtual lane each route travels on, for engines that break deadlocks with lanes (DFSSSP
 * assigns one per path, as OpenSM's path SL query answers). Engines that need one lane use
 * {@link #SINGLE}.
 */
public interface PathLanes {
    /** Every route on lane 0. */
    PathLanes SINGLE = new PathLanes() {
        @Override
        public int laneCount() {
            return 1;
        }

        @Override
        public int lane(int srcEndpoint, int dstLid) {
            return 0;
        }
    };

    /** Number of lanes the routes use. */
    int laneCount();

    /** Lane of the route from endpoint {@code srcEndpoint} to {@code dstLid}. */
    int lane(int srcEndpoint, int dstLid);
}
