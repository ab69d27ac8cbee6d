package org.fabriclab.ctl;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.FormatException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fabricctl}: the admin command line. Offline verbs ({@code route}, {@code topology},
 * {@code engines}) need no daemon; {@code status}, {@code sweep}, {@code engine}, {@code tables},
 * {@code counters}, {@code qtable}, {@code route SRC DST} and {@code topology} without
 * {@code --topology} ask the daemon. Exit codes:
 * 0 success, 1 the routes are not acceptable (unreachable pairs, a failed engine or sweep), 2 bad
 * input (usage, spec, file, unknown node; a bad option value is refused while parsing, before any
 * work), 3 an I/O failure or an unreachable daemon. Options follow the conventions of
 * {@code org.fabriclab.cli} (README, "CLI conventions").
 *
 * <p>The verbs are registered by hand ({@link #VERBS}), not in {@code @Command(subcommands)}:
 * picocli reflects over every registered command before it parses, and a daemon verb should not
 * pay for {@code route}'s forty options and converters. A command line whose first word is a verb
 * registers that verb alone; any other (help, version, a typo) registers them all, so usage and
 * "did you mean" are as before.
 */
@Command(name = "fabricctl", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Fabric manager admin CLI; offline routing and topology tools.")
public final class FabricCtl implements Runnable {
    /** Every verb by its {@code @Command} name, in the order usage lists them (a test checks the names). */
    static final Map<String, Supplier<Object>> VERBS = new LinkedHashMap<>();

    static {
        VERBS.put("route", RouteCommand::new);
        VERBS.put("topology", TopologyCommand::new);
        VERBS.put("engines", EnginesCommand::new);
        VERBS.put("torus-study", TorusStudyCommand::new);
        VERBS.put("status", DaemonCommands.Status::new);
        VERBS.put("job", DaemonCommands.Job::new);
        VERBS.put("sweep", DaemonCommands.Sweep::new);
        VERBS.put("engine", DaemonCommands.Engine::new);
        VERBS.put("tables", DaemonCommands.Tables::new);
        VERBS.put("counters", DaemonCommands.CountersVerb::new);
        VERBS.put("qtable", QTableCommand::new);
    }

    @CommandLine.Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    public static void main(String[] args) {
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the CLI with the given streams; returns the exit code (used by tests). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandSpec top = CommandSpec.forAnnotatedObject(new FabricCtl());
        Supplier<Object> verb = args.length > 0 ? VERBS.get(args[0]) : null;
        if (verb != null) {
            top.addSubcommand(args[0], CommandSpec.forAnnotatedObject(verb.get()));
        } else {
            VERBS.forEach((name, v) -> top.addSubcommand(name, CommandSpec.forAnnotatedObject(v.get())));
        }
        CommandLine cl = Cli.commandLine(top, out, err);
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
