package org.fabriclab.emulator.cli;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.CongestionControl;
import picocli.CommandLine.Option;

/**
 * {@code --cc} and {@code --cc-param}: the hosts' NIC congestion control, the same options on every
 * command that runs hosts ({@code emulator scenario}, {@code emulator up}, {@code fabric-manager
 * --emulate}). Checked by {@link #settings()} before anything starts.
 */
public final class CcOptions {
    /** The congestion controls' command-line names, for {@code ${COMPLETION-CANDIDATES}}. */
    public static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of(CongestionControl.NAMES).iterator();
        }
    }

    @Option(names = "--cc", paramLabel = "NAME", completionCandidates = Names.class,
            description = "The hosts' NIC congestion control: ${COMPLETION-CANDIDATES} (dcqcn: switches mark ECN by queue, receivers "
                    + "send CNPs, senders cut and recover their rates; swift: receivers acknowledge every packet, senders keep a window "
                    + "by the RTT against a target delay). Default: none")
    String name;

    @Option(names = "--cc-param", paramLabel = "NAME=VALUE",
            description = "A parameter of --cc's congestion control, repeatable (e.g. dcqcn's kmin_bytes, timer_us; swift's target_us, "
                    + "ai; the emulator README lists them all)")
    Map<String, String> params = new LinkedHashMap<>();

    /**
     * The settings given, or null for none.
     *
     * @throws IllegalArgumentException one line naming the bad name, parameter or value
     */
    public CongestionControl.Settings settings() {
        if (name == null && !params.isEmpty()) {
            throw new IllegalArgumentException("--cc-param needs a congestion control: give --cc " + String.join(", --cc ",
                    List.of(CongestionControl.NAMES).subList(1, CongestionControl.NAMES.length)));
        }
        return name == null ? null : CongestionControl.settings(name, params);
    }
}
