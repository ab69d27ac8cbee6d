package org.fabriclab.emulator;

import java.io.PrintWriter;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.emulator.cli.BenchForwardingCommand;
import org.fabriclab.emulator.cli.ScenarioCommand;
import org.fabriclab.emulator.cli.SimCommand;
import org.fabriclab.emulator.cli.SweepCommand;
import org.fabriclab.emulator.cli.TrainCcCommand;
import org.fabriclab.emulator.cli.UpCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/emulator}: runs emulated fabrics, live or in virtual time; one class per subcommand in {@code emulator.cli}. */
@Command(name = "emulator", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Runs emulated fabrics.", subcommands = {UpCommand.class, SimCommand.class, SweepCommand.class, ScenarioCommand.class,
            TrainCcCommand.class, BenchForwardingCommand.class})
public final class EmulatorMain implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        Cli.exit(new EmulatorMain(), args);
    }

    /** Runs the CLI with the given streams; returns the exit code (used by tests). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        return Cli.execute(new EmulatorMain(), args, out, err);
    }
}
