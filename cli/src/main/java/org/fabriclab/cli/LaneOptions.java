package org.fabriclab.cli;

import picocli.CommandLine.Option;

/** {@code --vls} and {@code --buffer}: a switch's virtual lanes and input buffers, live or simulated. */
public final class LaneOptions {
    @Option(names = "--vls", defaultValue = "2", paramLabel = "N", description = "Data virtual lanes per port. Default: ${DEFAULT-VALUE}")
    public int vls;

    @Option(names = "--buffer", defaultValue = "8", paramLabel = "PACKETS",
            description = "Input buffer per port and lane, in packets. Default: ${DEFAULT-VALUE}")
    public int buffer;
}
