package org.fabriclab.emulator.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.Gbps;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code --traffic}, {@code --traffic-gbps}, {@code --routing-mode} and {@code --source-queue}: the traffic a live emulated fabric's hosts send once
 * a manager has activated them ({@code emulator up}, {@code fabric-manager --emulate}). The one
 * table from command-line names to the live plane's patterns; {@code none} sends nothing. The
 * default is the command's, so it is given to {@link #pattern(String)}.
 */
public final class TrafficOptions {
    /** The live plane's patterns by name (the simulator's, {@link SimPatterns}, adv+N too); {@code none} is null. */
    public static final class Patterns extends SimPatterns {
        public Patterns() {
            super("live traffic pattern", withNone());
        }
    }

    private static Map<String, TrafficPattern> withNone() {
        Map<String, TrafficPattern> m = new LinkedHashMap<>(SimPatterns.names());
        m.put("none", null);
        return m;
    }

    @Option(names = "--traffic", paramLabel = "PATTERN", completionCandidates = Patterns.class, converter = NameCheck.class,
            description = "Traffic once every host is active: ${COMPLETION-CANDIDATES}. Default: none (emulator up), uniform (fabric-manager)")
    String name;

    @Option(names = "--traffic-gbps", defaultValue = "0.2", paramLabel = "GBPS", converter = Gbps.class,
            description = "Offered rate per host in Gbps, above 0 (no traffic: --traffic none). Default: ${DEFAULT-VALUE}")
    public double gbps;

    @Option(names = "--routing-mode", defaultValue = "DEFAULT", paramLabel = "MODE", converter = RoutingModes.class,
            completionCandidates = RoutingModes.class,
            description = "The routing mode every host's packets ask for, as Aries hosts choose it: ${COMPLETION-CANDIDATES} "
                    + "(honoured by a Dragonfly's adaptive routing; DEFAULT: none). Default: ${DEFAULT-VALUE}")
    public RoutingMode routingMode = RoutingMode.DEFAULT;

    @Option(names = "--source-queue", defaultValue = "" + SourceQueue.PACKETS, paramLabel = "PACKETS",
            description = "Each host's source queue: packets created and not yet taken by its NIC, 1.." + SourceQueue.MAX_PACKETS
                    + " (emulator sim's option). A full one refuses an open loop's new packets (lost) and holds a closed-loop job's "
                    + "message back until it has room (fabric_job_refused_messages_total); a --job whose messages, or whose closed "
                    + "loop's messages at once, could not fit is refused at the start. Default: ${DEFAULT-VALUE}")
    public int sourceQueue = SourceQueue.PACKETS;

    /**
     * {@code --source-queue}, checked.
     *
     * @throws IllegalArgumentException one line naming the option and the value
     */
    public int sourceQueuePackets() {
        if (sourceQueue < 1 || sourceQueue > SourceQueue.MAX_PACKETS) {
            throw new IllegalArgumentException("Invalid value for option '--source-queue': " + sourceQueue + " packets; give 1.."
                    + SourceQueue.MAX_PACKETS);
        }
        return sourceQueue;
    }

    /** The pattern's name as given, or {@code defaultName}. */
    public String name(String defaultName) {
        return name == null ? defaultName : name;
    }

    /** The live pattern given, or {@code defaultName}'s; null for {@code none}. */
    public TrafficPattern pattern(String defaultName) {
        return new Patterns().convert(name(defaultName));
    }

    /**
     * The live pattern given, or {@code defaultName}'s (null for {@code none}), refused if it cannot
     * run on {@code fabric} ({@link SimPatterns#checkFits}) or if {@code --traffic-gbps} is above
     * the links' {@code linkGbps} (a host cannot offer more than its link carries; 20 for 0.2 ran
     * at D=1000 and filled every source queue): for the commands to call before they start anything.
     *
     * @throws IllegalArgumentException one line naming {@code --traffic} or {@code --traffic-gbps}, the value and the reason
     */
    public TrafficPattern pattern(String defaultName, Fabric fabric, double linkGbps) {
        TrafficPattern p = pattern(defaultName);
        SimPatterns.checkFits("--traffic", p, fabric);
        if (p != null && gbps > linkGbps) {
            throw new IllegalArgumentException("Invalid value for option '--traffic-gbps': " + gbps + " Gbps per host is above the "
                    + linkGbps + " Gbps links (--link-gbps), more than a host's link carries; give at most " + linkGbps);
        }
        return p;
    }

    /** Refuses an unknown name while parsing; keeps the name. */
    public static final class NameCheck implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            new Patterns().convert(value);
            return value;
        }
    }
}
