package org.fabriclab.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Runs a picocli command the way every fabriclab main does: output and errors through the given
 * writers, a bad option value refused while parsing with one line naming the option and the value
 * (exit code 2, no stack trace, nothing started), an {@link IllegalArgumentException} from the
 * command likewise, and one warning line on standard error for each {@link DeprecatedSpelling} or
 * unit-less {@link TimeSpan} the command line used.
 */
public final class Cli {
    /** Exit code of a command line the command refuses: usage, a bad value, an unknown name. */
    public static final int BAD_INPUT = 2;
    /** Exit code of a command that could not do its work (a file it could not write, say). */
    public static final int FAILED = 1;

    private Cli() {
    }

    /** The command's {@code CommandLine} with fabriclab's handlers; callers may add their own exception handler. */
    public static CommandLine commandLine(Object command, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(command);
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) -> {
            err.println(ex.getCommandLine().getCommandSpec().qualifiedName() + ": " + ex.getMessage());
            err.flush();
            return BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (ex instanceof IllegalArgumentException) {
                err.println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
                err.flush();
                return BAD_INPUT;
            }
            if (ex instanceof IOException || ex instanceof UncheckedIOException) { // a file the user named: no stack trace
                err.println(cmd.getCommandSpec().qualifiedName() + ": " + ex.getMessage());
                err.flush();
                return FAILED;
            }
            throw ex;
        });
        cl.setExecutionStrategy(parsed -> {
            warnDeprecated(parsed, err);
            return new CommandLine.RunLast().execute(parsed);
        });
        return cl;
    }

    /** Runs {@code command} on {@code args}; returns the exit code. */
    public static int execute(Object command, String[] args, PrintWriter out, PrintWriter err) {
        return commandLine(command, out, err).execute(args);
    }

    /** Runs {@code command} on standard output and error and exits with its code: a main's whole body. */
    public static void exit(Object command, String[] args) {
        System.exit(execute(command, args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** One line per deprecated spelling the command line used, on the command's error writer. */
    static void warnDeprecated(ParseResult parsed, PrintWriter err) {
        List<String> args = parsed.originalArgs();
        Set<String> lines = new LinkedHashSet<>();
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            String command = p.commandSpec().qualifiedName();
            for (OptionSpec o : p.matchedOptions()) {
                if (o.userObject() instanceof AnnotatedElement e && e.getAnnotation(DeprecatedSpelling.class) != null) {
                    DeprecatedSpelling d = e.getAnnotation(DeprecatedSpelling.class);
                    for (String name : d.names().length == 0 ? o.names() : d.names()) {
                        if (used(args, name)) {
                            lines.add(command + ": " + name + " is deprecated and goes away in the next release; use " + d.use());
                        }
                    }
                }
                if (o.getValue() instanceof TimeSpan t && t.unitless()) {
                    lines.add(command + ": " + o.longestName() + " " + t.text() + " without a unit is deprecated; write "
                            + t.text() + t.bareUnit());
                }
            }
        }
        lines.forEach(err::println);
        err.flush();
    }

    private static boolean used(List<String> args, String name) {
        return args.stream().anyMatch(a -> a.equals(name) || a.startsWith(name + "="));
    }
}
