package org.fabriclab.cli;

import picocli.CommandLine.Option;

/** {@code --json}: the report as one JSON object on standard output (warnings stay on standard error). */
public final class JsonOption {
    @Option(names = "--json", description = "Print the report as one JSON object")
    public boolean json;
}
