package org.fabriclab.cli;

import picocli.CommandLine.Option;

/**
 * {@code --link-gbps} and {@code --link-latency}: every link's rate and propagation delay. The
 * delay's default is the command's (0 live, where the plane honours tens of microseconds and more;
 * 100ns simulated), so it is given to {@link #latencyNs(long)}.
 */
public final class LinkOptions {
    @Option(names = "--link-gbps", defaultValue = "100", paramLabel = "GBPS", converter = Gbps.class,
            description = "Link rate in Gbps, above 0. Default: ${DEFAULT-VALUE}")
    public double linkGbps;

    @Option(names = "--link-latency", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "Propagation delay of every link (ns, us, ms, s). Default: 0 live, 100ns simulated")
    TimeSpan latency;

    /** The old spellings, in nanoseconds without a unit: {@code --link-latency-ns} (live) and {@code --latency-ns} (sim). */
    @DeprecatedSpelling(use = "--link-latency TIME")
    @Option(names = {"--link-latency-ns", "--latency-ns"}, hidden = true, paramLabel = "NS")
    void latencyNanos(long nanos) {
        latency = TimeSpan.ofNanos(nanos);
    }

    /** The delay given, or {@code defaultNs}. */
    public long latencyNs(long defaultNs) {
        return latency == null ? defaultNs : latency.nanos();
    }

    /** The live plane's limit on a link's delay: a wire's clock counts in an {@code int} of nanoseconds (2.1 s). */
    public static final long LIVE_MAX_LATENCY_NS = Integer.MAX_VALUE;

    /** The delay given for a live link, or {@code defaultNs}; one beyond {@link #LIVE_MAX_LATENCY_NS} refused, naming the option. */
    public long liveLatencyNs(long defaultNs) {
        long ns = latencyNs(defaultNs);
        if (ns > LIVE_MAX_LATENCY_NS) {
            throw new IllegalArgumentException("--link-latency " + latency + " is more than a live link takes (at most "
                    + TimeSpan.ofNanos(LIVE_MAX_LATENCY_NS / 1000 * 1000) + ")");
        }
        return ns;
    }
}
