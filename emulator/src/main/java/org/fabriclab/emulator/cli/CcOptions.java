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
                    + "send CNPs, senders cut and recover their rates; swift: receivers acknowledge every packet (every ack_every-th), "
                    + "senders keep a window by the RTT against a target delay; rl-cc: receivers acknowledge as swift's, a learned tree policy sets each "
                    + "flow's rate once per RTT from its RTTs, the shipped one unless --cc-param policy=FILE; ack-only: receivers acknowledge as swift's, "
                    + "senders send at the line rate and ignore the ACKs, a reliable transport without congestion control). Default: none")
    String name;

    @Option(names = "--cc-param", paramLabel = "NAME=VALUE",
            description = "A parameter of the congestion control, repeatable (dcqcn's kmin_bytes, kmax_bytes, pmax, g, "
                    + "alpha_period_us, cnp_interval_us, timer_us, byte_counter_bytes, f, rai_gbps, rhai_gbps, min_rate_gbps; "
                    + "swift's target_us, ai, beta, max_mdf, min_cwnd, max_cwnd, init_cwnd, fs_range_us, fs_min_cwnd, "
                    + "fs_max_cwnd, hop_scale_us; rl-cc's policy (a policy file, or default), min_rate_gbps, period_us, base_rtt_us; "
                    + "swift's, rl-cc's and ack-only's ack_every, 1 to 64 packets per ACK, and ack_delay_us, the longest a packet waits for its ACK); "
                    + "a report's ccParams has every value in force")
    Map<String, String> params = new LinkedHashMap<>();

    /**
     * The settings given, or null for none, checked against hosts' links of {@code lineGbps} (one
     * host's state is made and dropped: what would refuse the run refuses it here, before it starts).
     *
     * @throws IllegalArgumentException one line naming the bad name, parameter or value
     */
    public CongestionControl.Settings settings(double lineGbps) {
        if (name == null && !params.isEmpty()) {
            throw new IllegalArgumentException("--cc-param needs " + CongestionControl.algorithms());
        }
        CongestionControl.Settings s = name == null ? null : CongestionControl.settings(name, params);
        if (s != null) {
            s.create(lineGbps);
        }
        return s;
    }
}
