package org.fabriclab.routing.dragonfly;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The Dragonfly routing algorithms the switch core runs, as Kang et al. ("Q-adaptive: A
 * Multi-Agent Reinforcement Learning Based Routing on Dragonfly Network") evaluate them, with the
 * virtual channels each needs to be deadlock-free and the longest path it can take in
 * router-to-router hops. UGALg and UGALn are UGAL whose non-minimal candidate is VALg or VALn (the
 * paper's meaning), not Kim et al.'s UGAL-G and UGAL-L.
 *
 * <p>The VC rules ({@link DragonflyRules#vc}): MIN 2 (VC0 in the source group and on the global hop,
 * VC1 in the destination group); VALg 3 (VC0 to the intermediate group, VC1 in it and on to the
 * destination group, VC2 in that); VALn 4 (as VALg with VC1 for the local hop to the intermediate
 * router, then VC2, VC3); UGALg 3 and UGALn 4 as VALg and VALn, a minimal packet taking the VC of the
 * second phase; PAR 5 (VC0 minimal and VC1 non-minimal in the source group, VC2 the local hop to the
 * intermediate router, VC3 on to the destination group, VC4 in it); Q-adaptive 5 (the VC is the
 * number of router-to-router hops so far). {@code DragonflyPaths} proves each acyclic on the
 * (channel, VC) dependency graph of every path the rules allow.
 */
public enum DragonflyAlgorithm {
    MIN("df-min", 2, 3, "Dragonfly minimal routing: local, global, local hop"),
    VALG("df-valg", 3, 5, "Dragonfly Valiant routing through a random intermediate group (VALg)"),
    VALN("df-valn", 4, 6, "Dragonfly Valiant routing through a random router of a random intermediate group (VALn)"),
    UGALG("df-ugalg", 3, 5, "Dragonfly UGAL at the source router: minimal or VALg, by output queue plus credits in use (UGALg)"),
    UGALN("df-ugaln", 4, 6, "Dragonfly UGAL at the source router: minimal or VALn, by output queue plus credits in use (UGALn)"),
    PAR("df-par", 5, 7, "Dragonfly progressive adaptive routing: UGALn at the source router, re-evaluated once at the next "
            + "router of the source group (PAR)"),
    Q_ADAPTIVE("q-adaptive", 5, 5, "Dragonfly Q-adaptive routing: two-level Q-tables learnt online by every router, decisions at "
            + "the source router and the first router of an intermediate group");

    private static final DragonflyAlgorithm[] ALL = values();
    private final String key;
    private final int vcs;
    private final int maxHops;
    private final String description;

    DragonflyAlgorithm(String key, int vcs, int maxHops, String description) {
        this.key = key;
        this.vcs = vcs;
        this.maxHops = maxHops;
        this.description = description;
    }

    /** The routing engine's key ({@code df-min}, ..., {@code q-adaptive}). */
    public String key() {
        return key;
    }

    /** Virtual channels the algorithm needs to be deadlock-free. */
    public int vcs() {
        return vcs;
    }

    /** The longest path the algorithm can take, in router-to-router hops. */
    public int maxHops() {
        return maxHops;
    }

    public String description() {
        return description;
    }

    /** True for the algorithms whose source router weighs minimal against non-minimal by congestion or learning. */
    public boolean adaptive() {
        return this == UGALG || this == UGALN || this == PAR || this == Q_ADAPTIVE;
    }

    /** True where the non-minimal path goes through a random router of the intermediate group (VALn, UGALn, PAR). */
    boolean throughRouter() {
        return this == VALN || this == UGALN || this == PAR;
    }

    /** The algorithm by its wire code ({@link #code()}), or null if none has it. */
    public static DragonflyAlgorithm ofCode(int code) {
        return code >= 1 && code <= ALL.length ? ALL[code - 1] : null;
    }

    /** The number the management contract carries (1 for {@link #MIN}, ...; 0 means none). */
    public int code() {
        return ordinal() + 1;
    }

    /**
     * The algorithm by its engine key, any case.
     *
     * @throws IllegalArgumentException naming the known keys
     */
    public static DragonflyAlgorithm byKey(String key) {
        for (DragonflyAlgorithm a : ALL) {
            if (a.key.equals(key.toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown Dragonfly algorithm '" + key + "'; known: "
                + Arrays.stream(ALL).map(DragonflyAlgorithm::key).collect(Collectors.joining(", ")));
    }
}
