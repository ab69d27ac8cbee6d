package org.fabriclab.ctl;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.FormatException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code fabricctl}: the admin command line. Offline verbs ({@code route}, {@code topology},
 * {@code engines}) need no daemon; {@code status}, {@code sweep}, {@code engine}, {@code tables},
 * {@code route SRC DST} and {@code topology} without {@code --topology} ask the daemon. Exit codes:
 * 0 success, 1 the routes are not acceptable (unreachable pairs, a failed engine or sweep), 2 bad
 * input (usage, spec, file, unknown node; a bad option value is refused while parsing, before any
 * work), 3 an I/O failure or an unreachable daemon. Options follow the conventions of
 * {@code org.fabriclab.cli} (README, "CLI conventions").
 */
@Command(name = "fabricctl", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Fabric manager admin CLI; offline routing and topology tools.",
        subcommands = {RouteCommand.class, TopologyCommand.class, EnginesCommand.class, TorusStudyCommand.class, DaemonCommands.Status.class, DaemonCommands.Job.class,
            DaemonCommands.Sweep.class, DaemonCommands.Engine.class, DaemonCommands.Tables.class, DaemonCommands.CountersVerb.class})
public final class FabricCtl implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the CLI with the given streams; returns the exit code (used by tests). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = Cli.commandLine(new FabricCtl(), out, err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            Throwable e = ex;
            if (e instanceof Daemon.DaemonUnreachableException) {
                err.println("fabricctl: " + e.getMessage());
                return 3;
            }
            if (e instanceof FormatException || e instanceof IllegalArgumentException) {
                err.println("fabricctl: " + e.getMessage());
                return 2;
            }
            if (e instanceof NoSuchFileException n) {
                err.println("fabricctl: " + n.getFile() + ": no such file");
                return 2;
            }
            if (e instanceof RoutingException) {
                err.println("fabricctl: routing failed: " + e.getMessage());
                for (Throwable s : e.getSuppressed()) {
                    err.println("  also failed: " + s.getMessage());
                }
                return 1;
            }
            if (e instanceof IOException) {
                err.println("fabricctl: " + e.getMessage());
                return 3;
            }
            throw ex;
        });
        return cl.execute(args);
    }
}
