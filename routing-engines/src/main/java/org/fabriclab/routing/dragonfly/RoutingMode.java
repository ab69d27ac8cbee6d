package org.fabriclab.routing.dragonfly;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The routing mode a host asks for per packet, as Cray Aries offers it to applications
 * (MPICH_GNI_ROUTING_MODE; De Sensi et al., "Mitigating Network Noise on Dragonfly Networks
 * through Application-Aware Routing", SC'19, section 2.2), carried in 4 bits of the packet header
 * ({@link #code}). The switch core's Dragonfly routing honours it where the installed algorithm
 * has a choice, and never leaves the paths the algorithm's rules allow ({@link DragonflyRules};
 * {@code DragonflyPaths} proves those deadlock-free, so no mode needs a proof of its own):
 * <ul>
 *   <li>{@link #DEFAULT} (code 0, a packet that names no mode): the fabric's algorithm exactly as
 *       configured;
 *   <li>{@link #ADAPTIVE_0} to {@link #ADAPTIVE_3}: UGAL's and PAR's comparison with the mode's
 *       bias added to the non-minimal candidate's congestion estimate ({@link #bias}), as the
 *       paper describes: "a bias value can be added to the congestion estimated for non-minimal
 *       paths, so that the higher is the bias, the higher is the probability that the packet will
 *       be routed on a minimal path";
 *   <li>{@link #MIN_HASH} and {@link #IN_ORDER}: minimal; {@link #NMIN_HASH}: non-minimal through
 *       the intermediate a hash of the packet's addresses names ({@link #hash}), so one pair always
 *       takes one path.
 * </ul>
 * The paper's values of the biases are not public ("it is not possible to set an arbitrary value
 * for the bias ... which exact value is not public"); it gives their order only (ADAPTIVE_2's bias
 * "lies between" ADAPTIVE_0's, none, and ADAPTIVE_3's, high) and ADAPTIVE_1's shape (the bias
 * "increases as the packet approaches the destination", citing Cray's XC network paper). Ours,
 * in packets of the comparison's unit (a port's queue plus its credits in use), scaled by one VC's
 * buffer B of the minimal port so that they mean the same at any buffer size: ADAPTIVE_2 B/4,
 * ADAPTIVE_3 B (a whole VC buffer more of backlog on the minimal port before a packet leaves it),
 * ADAPTIVE_1 (hops + 1) x B/8 (half the low bias at the source router, growing by as much with
 * every router-to-router hop taken; PAR's re-evaluation at the next router sees B/4).
 *
 * <p>On this model's Dragonfly a router pair has one minimal path but where a router has parallel
 * links (several to one group or router): there the hash picks the link ({@link
 * DragonflyRules#parallelLink}), as on Aries it chooses among several minimal paths; {@link
 * #MIN_HASH} and {@link #IN_ORDER} route alike. Q-adaptive's own thresholds ({@code q_thld1}, {@code
 * q_thld2}) are its bias towards minimal: the adaptive modes leave them as the engine set them;
 * the deterministic modes take the minimal port (MIN_HASH, IN_ORDER) or the non-minimal one the
 * hash names among the router's other non-host ports (NMIN_HASH), and never explore. MIN, VALg and
 * VALn are oblivious: a mode cannot make MIN non-minimal (its two VCs carry no Valiant path) nor
 * VALg/VALn minimal; the deterministic modes make VAL's intermediate the hash's.
 */
public enum RoutingMode {
    DEFAULT(0),
    ADAPTIVE_0(1),
    ADAPTIVE_1(2),
    ADAPTIVE_2(3),
    ADAPTIVE_3(4),
    MIN_HASH(5),
    NMIN_HASH(6),
    IN_ORDER(7);

    /** Header bits the mode takes. */
    public static final int BITS = 4;
    private static final RoutingMode[] BY_CODE = values();
    private final int code;

    RoutingMode(int code) {
        this.code = code;
    }

    /** The number the packet header carries (0: {@link #DEFAULT}). */
    public int code() {
        return code;
    }

    /** The mode of header code {@code code}; a code no mode has (8..15, reserved) reads as {@link #DEFAULT}. */
    public static RoutingMode ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : DEFAULT;
    }

    /** True for the modes that fix the path by the packet's addresses (MIN_HASH, NMIN_HASH, IN_ORDER). */
    public boolean deterministic() {
        return this == MIN_HASH || this == NMIN_HASH || this == IN_ORDER;
    }

    /**
     * Packets added to the non-minimal candidate's congestion at a decision taken after {@code hops}
     * router-to-router hops, {@code bufferPackets} being one VC's buffer at the minimal port's far
     * end (see the class comment for the values and why).
     */
    public int bias(int hops, int bufferPackets) {
        return switch (this) {
            case ADAPTIVE_1 -> (hops + 1) * bufferPackets / 8;
            case ADAPTIVE_2 -> bufferPackets / 4;
            case ADAPTIVE_3 -> bufferPackets;
            default -> 0;
        };
    }

    /**
     * The hash of a packet's addresses that picks a deterministic mode's path: the same pair, the
     * same value (Murmur3's 32-bit finaliser over both LIDs, so neighbouring LIDs spread).
     */
    public static int hash(int slid, int dlid) {
        int h = (slid << 16) ^ (dlid & 0xFFFF);
        h ^= h >>> 16;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return h;
    }

    /** A value in {@code 0..n-1} from {@code hash}'s bits {@code shift} onwards (n above 0). */
    public static int pick(int hash, int shift, int n) {
        return Integer.remainderUnsigned(Integer.rotateRight(hash, shift), n);
    }

    /**
     * The mode by its name, any case, {@code -} or {@code _} alike ({@code adaptive-3}).
     *
     * @throws IllegalArgumentException naming the valid modes
     */
    public static RoutingMode byName(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
        for (RoutingMode m : BY_CODE) {
            if (m.name().equals(n)) {
                return m;
            }
        }
        String shown = name.length() > 40 ? name.substring(0, 40) + "... (" + name.length() + " characters)" : name;
        throw new IllegalArgumentException("unknown routing mode '" + shown + "'; valid: " + names());
    }

    /** The valid names, comma-separated. */
    public static String names() {
        return Arrays.stream(BY_CODE).map(Enum::name).collect(Collectors.joining(", "));
    }
}
