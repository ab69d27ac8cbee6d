/**
 * The command-line conventions the four mains ({@code fabric-manager}, {@code switch-agent},
 * {@code emulator}, {@code fabricctl}) share, so one word means one thing in all of them: the
 * picocli mixins for options they repeat ({@link org.fabriclab.cli.LinkOptions},
 * {@link org.fabriclab.cli.LaneOptions}, {@link org.fabriclab.cli.SeedOption},
 * {@link org.fabriclab.cli.JsonOption}, {@link org.fabriclab.cli.EngineOption}), the converters
 * that refuse a bad value while parsing, before anything starts ({@link org.fabriclab.cli.TimeSpan},
 * {@link org.fabriclab.cli.NamedValues}, {@link org.fabriclab.cli.TopologyArg}), and
 * {@link org.fabriclab.cli.Cli}, which runs a command with one-line errors (exit code 2, no stack
 * trace) and one warning line per deprecated spelling used.
 *
 * <p>Nothing here starts threads or touches a network: it depends on picocli and the routing
 * library only, so every main can use it.
 */
package org.fabriclab.cli;
