package org.fabriclab.cli;

import picocli.CommandLine.Option;

/**
 * {@code --seed N}: the seed of every random choice a command makes (traffic, engines that draw,
 * systems drawn). In every main {@code --seed} means this and nothing else; the daemon's endpoint
 * of a running fabric is {@code --connect}.
 */
public final class SeedOption {
    @Option(names = "--seed", defaultValue = "1", paramLabel = "N",
            description = "Seed of the random choices (same seed, same result). Default: ${DEFAULT-VALUE}")
    public long seed;
}
