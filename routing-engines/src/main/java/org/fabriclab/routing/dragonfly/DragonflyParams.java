package org.fabriclab.routing.dragonfly;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The settings of the switches' Dragonfly routing, named as the Q-adaptive paper names them, with
 * its 1,056-node evaluation's values as defaults (section 5.1):
 * <ul>
 *   <li>{@code alpha} (0.2), {@code beta} (0.04): Q-adaptive's learning rates when a Q-value
 *       improves and when it worsens (hysteretic Q-learning, Equation 3);
 *   <li>{@code epsilon} (0.001): the chance of a uniformly random port at a Q-adaptive decision;
 *   <li>{@code q_thld1} (0.2), {@code q_thld2} (0.35): the bias towards the minimal port at the
 *       source router and at the first router of an intermediate group (Equation 2: the best port
 *       is taken only if it is more than this fraction quicker than the minimal one);
 *   <li>{@code ugal_threshold} (2.0) and {@code ugal_bias} (0 packets): UGAL and PAR take the
 *       non-minimal path when the minimal port's congestion exceeds {@code ugal_threshold} times the
 *       non-minimal port's plus {@code ugal_bias} (the paper's "less than twice", zero bias);
 *       congestion is a port's output queue plus its credits in use, over every VC.
 * </ul>
 * The 2,550-node evaluation (section 6) uses {@code q_thld1=0.05} and {@code q_thld2=0.4}.
 */
public record DragonflyParams(double alpha, double beta, double epsilon, double qThld1, double qThld2, double ugalThreshold,
                              int ugalBias) {
    /** The paper's 1,056-node values. */
    public static final DragonflyParams DEFAULTS = new DragonflyParams(0.2, 0.04, 0.001, 0.2, 0.35, 2.0, 0);

    /**
     * The parameters algorithm {@code a} reads, with their defaults: Q-adaptive its learning
     * rates, exploration and thresholds; UGAL and PAR their threshold and bias; MIN and Valiant
     * none (what an algorithm does not read, a user is told, not silently ignored).
     */
    public static Map<String, String> names(DragonflyAlgorithm a) {
        Map<String, String> m = new LinkedHashMap<>();
        names().forEach((name, value) -> {
            boolean ugal = name.startsWith("ugal_");
            if (a == DragonflyAlgorithm.Q_ADAPTIVE ? !ugal : ugal && (a == DragonflyAlgorithm.UGALG || a == DragonflyAlgorithm.UGALN
                    || a == DragonflyAlgorithm.PAR)) {
                m.put(name, value);
            }
        });
        return m;
    }

    /** The parameter names, as engines take them in {@code --engine-param NAME=VALUE}, with their defaults. */
    public static Map<String, String> names() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("alpha", "0.2");
        m.put("beta", "0.04");
        m.put("epsilon", "0.001");
        m.put("q_thld1", "0.2");
        m.put("q_thld2", "0.35");
        m.put("ugal_threshold", "2.0");
        m.put("ugal_bias", "0");
        return m;
    }

    public DragonflyParams {
        check("alpha", alpha, 0, 1);
        check("beta", beta, 0, 1);
        check("epsilon", epsilon, 0, 1);
        check("q_thld1", qThld1, 0, 1e6);
        check("q_thld2", qThld2, 0, 1e6);
        check("ugal_threshold", ugalThreshold, 0, 1e6);
        if (ugalBias < 0 || ugalBias > 1_000_000) {
            throw new IllegalArgumentException("ugal_bias=" + ugalBias + " is outside 0..1000000 packets");
        }
    }

    private static void check(String name, double v, double lo, double hi) {
        if (!(v >= lo && v <= hi)) {
            throw new IllegalArgumentException(name + "=" + v + " is outside " + fmt(lo) + ".." + fmt(hi));
        }
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /**
     * The defaults with the values {@code params} names ({@code alpha=0.3}, ...); other keys are
     * left to the caller.
     *
     * @throws IllegalArgumentException naming a value that is not a number or out of range
     */
    public static DragonflyParams of(Map<String, String> params) {
        return new DragonflyParams(number(params, "alpha", DEFAULTS.alpha), number(params, "beta", DEFAULTS.beta),
                number(params, "epsilon", DEFAULTS.epsilon), number(params, "q_thld1", DEFAULTS.qThld1),
                number(params, "q_thld2", DEFAULTS.qThld2), number(params, "ugal_threshold", DEFAULTS.ugalThreshold),
                (int) whole(params, "ugal_bias", DEFAULTS.ugalBias));
    }

    static double number(Map<String, String> params, String name, double def) {
        String v = params.get(name);
        if (v == null) {
            return def;
        }
        try {
            return Double.parseDouble(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + v + " is not a number");
        }
    }

    static long whole(Map<String, String> params, String name, long def) {
        String v = params.get(name);
        if (v == null) {
            return def;
        }
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + v + " is not a whole number");
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "alpha=%s beta=%s epsilon=%s q_thld1=%s q_thld2=%s ugal_threshold=%s ugal_bias=%d",
                alpha, beta, epsilon, qThld1, qThld2, ugalThreshold, ugalBias);
    }
}
