package org.fabriclab.routing.dragonfly;

import java.util.Objects;

/**
 * A Dragonfly engine's routing state beside its LFTs: the fabric read as a Dragonfly, the
 * algorithm, and per switch what it installs ({@link DragonflySwitch}, indexed by switch number).
 * Immutable.
 */
public final class DragonflyTables {
    private final DragonflyFabric dragonfly;
    private final DragonflyAlgorithm algorithm;
    private final DragonflySwitch[] switches;

    public DragonflyTables(DragonflyFabric dragonfly, DragonflyAlgorithm algorithm, DragonflySwitch[] switches) {
        this.dragonfly = Objects.requireNonNull(dragonfly, "dragonfly");
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        if (switches.length != dragonfly.fabric().switchCount()) {
            throw new IllegalArgumentException(switches.length + " routers described for " + dragonfly.fabric().switchCount() + " switches");
        }
        this.switches = switches.clone();
    }

    public DragonflyFabric dragonfly() {
        return dragonfly;
    }

    public DragonflyAlgorithm algorithm() {
        return algorithm;
    }

    /** What switch number {@code s} installs. */
    public DragonflySwitch of(int s) {
        return switches[s];
    }
}
