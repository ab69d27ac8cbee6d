package org.fabriclab.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;

/**
 * How a topology's switches are cabled when each runs as a {@code switch-agent} process of its own
 * ({@code emulator up --processes}, or one pod per switch): switches are numbered 0.. in the
 * topology's node order, and of each switch-to-switch link the lower-numbered end dials (its
 * {@code --link}), the other accepts.
 */
public final class SwitchCabling {
    /** What {@code {index}} in a host pattern stands for: a switch's number. */
    public static final String INDEX = "{index}";

    private SwitchCabling() {
    }

    /** A data link a switch opens: from its {@code port} to {@code peerPort} of the switch at node {@code peer}. */
    public record Dial(int port, int peer, int peerPort) {
    }

    /** The node of the topology's {@code index}-th switch; refused (IllegalArgumentException) outside 0..switches-1. */
    public static int switchNode(Fabric fabric, int index) {
        for (int n = 0, k = 0; n < fabric.nodeCount(); n++) {
            if (fabric.isSwitch(n) && k++ == index) {
                return n;
            }
        }
        throw new IllegalArgumentException("switch index " + index + " is outside 0.." + (fabric.switchCount() - 1) + " ("
                + fabric.kind() + " has " + fabric.switchCount() + " switches)");
    }

    /** The number of switch node {@code node}: how many switches come before it. */
    public static int switchIndex(Fabric fabric, int node) {
        int k = 0;
        for (int n = 0; n < node; n++) {
            k += fabric.isSwitch(n) ? 1 : 0;
        }
        return k;
    }

    /** The links switch {@code node} dials: those to a switch numbered after it. */
    public static List<Dial> dials(Fabric fabric, int node) {
        List<Dial> dials = new ArrayList<>();
        for (int p = 1; p <= fabric.portCount(node); p++) {
            int g = fabric.globalPort(node, p);
            int peer = fabric.peerNode(g);
            if (peer > node && fabric.isSwitch(peer)) {
                dials.add(new Dial(p, peer, fabric.peerPort(g)));
            }
        }
        return dials;
    }

    /**
     * The cable delays the topology gives switch {@code node}'s ports (a Dragonfly's local and
     * global cables), as {@code --port-latency} takes them: port to a time in ns ({@code 30ns});
     * ports whose cable has none are left out (they take {@code --link-latency}).
     */
    public static Map<Integer, String> cableDelays(Fabric fabric, int node) {
        Map<Integer, String> delays = new LinkedHashMap<>();
        for (int p = 1; p <= fabric.portCount(node); p++) {
            long ns = fabric.linkDelayNs(fabric.globalPort(node, p));
            if (ns >= 0) {
                delays.put(p, ns + "ns");
            }
        }
        return delays;
    }

    /** {@code pattern} with {@link #INDEX} replaced by switch {@code index}'s number. */
    public static String host(String pattern, int index) {
        return pattern.replace(INDEX, Integer.toString(index));
    }

    /** Refuses (IllegalArgumentException, naming {@code option}) a host pattern without {@link #INDEX}. */
    public static String checkPattern(String option, String pattern) {
        if (!pattern.contains(INDEX) || pattern.contains(":") || pattern.contains("/")) {
            throw new IllegalArgumentException(option + " '" + pattern + "' is not a host pattern: a host name with " + INDEX
                    + " where the switch's number goes (fabriclab-switch-" + INDEX + ".fabriclab-switch)");
        }
        return pattern;
    }
}
