package org.fabriclab.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.AnnotatedElement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
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
        hideDeprecatedNames(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, args) -> {
            err.println(ex.getCommandLine().getCommandSpec().qualifiedName() + ": " + describe(ex, List.of(args)));
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

    /**
     * Shows each option that keeps an old spelling beside its new one ({@code --connect} and
     * {@code --seed}) by its new name in the usage's synopsis: picocli writes an option there by its
     * shortest name, so {@code fabric-manager --help} offered {@code [--seed=ENDPOINT]} and {@code
     * fabricctl route --help} {@code [--warmup=N]}, the spellings that go away. (Two options for one
     * field would not do: picocli gives the one not used its default after parsing, undoing the
     * other's value.) Subcommands too.
     */
    static void hideDeprecatedNames(CommandLine cl) {
        Map<String, String> rename = new LinkedHashMap<>();
        for (OptionSpec o : cl.getCommandSpec().options()) {
            DeprecatedSpelling d = o.userObject() instanceof AnnotatedElement e ? e.getAnnotation(DeprecatedSpelling.class) : null;
            if (d != null && d.names().length > 0 && !o.hidden()) {
                List<String> old = List.of(d.names());
                Arrays.stream(o.names()).filter(n -> !old.contains(n)).findFirst()
                        .ifPresent(current -> rename.put(o.shortestName(), current));
            }
        }
        if (!rename.isEmpty()) {
            IHelpSectionRenderer synopsis = cl.getHelpSectionMap().get(UsageMessageSpec.SECTION_KEY_SYNOPSIS);
            cl.getHelpSectionMap().put(UsageMessageSpec.SECTION_KEY_SYNOPSIS, help -> {
                String text = synopsis.render(help);
                for (Map.Entry<String, String> r : rename.entrySet()) {
                    text = text.replaceAll("(?<=\\[)" + Pattern.quote(r.getKey()) + "(?=[=\\]])", Matcher.quoteReplacement(r.getValue()));
                }
                return text;
            });
        }
        cl.getSubcommands().values().forEach(Cli::hideDeprecatedNames);
    }

    /**
     * picocli's reason for refusing a command line, with what to do where picocli leaves it out: a
     * word that is no command of one that has commands lists them, and a misspelt option names the
     * nearest one (picocli prints its suggestions as lines of their own, which the one-line rule drops).
     */
    static String describe(CommandLine.ParameterException ex, List<String> args) {
        String number = notANumber(ex);
        if (number != null) {
            return number;
        }
        if (!(ex instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
            return ex.getMessage();
        }
        String first = u.getUnmatched().get(0);
        String near = nearest(first, u.getSuggestions());
        Set<String> commands = ex.getCommandLine().getCommandSpec().subcommands().keySet();
        String option = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
        if (option.startsWith("-") && !commands.isEmpty()) {
            List<String> takers = ex.getCommandLine().getCommandSpec().subcommands().entrySet().stream()
                    .filter(c -> c.getValue().getCommandSpec().findOption(option) != null).map(Map.Entry::getKey).distinct().toList();
            if (!takers.isEmpty()) { // fabricctl --server HOST:PORT status: an option of the commands, given before one
                String self = ex.getCommandLine().getCommandSpec().qualifiedName();
                String typed = args.stream().filter(takers::contains).findFirst().orElse(takers.get(0));
                return option + " is an option of " + (takers.size() == commands.size() ? "each command" : String.join(", ", takers))
                        + ", not of " + self + " itself: give it after the command (" + self + " " + typed + " " + option + " ...)";
            }
        }
        if (!first.startsWith("-") && commands.isEmpty()) { // fabricctl tables L1 extra: picocli's 'Unmatched argument at index 2'
            String self = ex.getCommandLine().getCommandSpec().qualifiedName();
            List<String> labels = ex.getCommandLine().getCommandSpec().positionalParameters().stream()
                    .map(PositionalParamSpec::paramLabel).toList();
            return "'" + Excerpt.bare(first) + "' is an argument more than " + self + " takes ("
                    + (labels.isEmpty() ? "none" : String.join(" ", labels)) + "; " + self + " --help shows them)";
        }
        if (!first.startsWith("-") && !commands.isEmpty()) {
            return "'" + Excerpt.bare(first) + "' is not a command; give one of " + String.join(", ", commands)
                    + (near == null ? "" : " (did you mean " + near + "?)");
        }
        return ex.getMessage() + (first.startsWith("-") && near != null ? "; did you mean " + near + "?" : "");
    }

    /**
     * A value picocli's own number converter refused ({@code 'abc' is not a double}), said as the
     * option, the value and what to give: the kind of number, its range where the value overflowed
     * it, the option's default as an example; null for any other refusal (a converter of ours words
     * its own).
     */
    static String notANumber(CommandLine.ParameterException ex) {
        ArgSpec arg = ex.getArgSpec();
        if (arg == null || ex.getValue() == null || !(ex.getCause() instanceof CommandLine.TypeConversionException)
                || arg.converters().length > 0) {
            return null;
        }
        Class<?> type = arg.type().isArray() ? arg.type().getComponentType()
                : arg.auxiliaryTypes().length > 0 && arg.isMultiValue() ? arg.auxiliaryTypes()[0] : arg.type();
        boolean decimal = type == double.class || type == Double.class || type == float.class || type == Float.class;
        // a whole number type's range (a decimal type refuses only what is no number)
        long[] range = decimal ? new long[2]
                : type == int.class || type == Integer.class ? new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE}
                : type == long.class || type == Long.class ? new long[] {Long.MIN_VALUE, Long.MAX_VALUE}
                : type == short.class || type == Short.class ? new long[] {Short.MIN_VALUE, Short.MAX_VALUE}
                : null;
        if (range == null) {
            return null;
        }
        String value = ex.getValue();
        // digits a whole number type refused are past its range: the bound passed, not the type's whole
        // range (--threads 99999999999 offered -2147483648 to 2147483647, negatives the option refuses)
        boolean overflow = !decimal && value.strip().matches("[+-]?[0-9]+");
        boolean negative = value.strip().startsWith("-");
        String cause = ex.getCause().getMessage();
        // picocli's "Invalid value for option '--load': " kept, as every refusal of a value reads
        String name = cause != null && ex.getMessage().endsWith(cause)
                ? ex.getMessage().substring(0, ex.getMessage().length() - cause.length())
                : (arg instanceof OptionSpec o ? o.longestName() : ((PositionalParamSpec) arg).paramLabel()) + ": ";
        String dflt = arg.defaultValue() == null || arg.defaultValue().isEmpty() ? "" : " (default " + arg.defaultValue() + ")";
        String what = decimal ? "not a number; give a decimal number such as 0.5 or 1e-3"
                : overflow ? (negative ? "too small; give a whole number of at least " + range[0] : "too large; give a whole number of at most " + range[1])
                : "not a whole number; give a whole number";
        return name + "'" + Excerpt.bare(value) + "' is " + what + dflt;
    }

    /**
     * The first of picocli's suggestions that is a likely misspelling of {@code typed}: at most two
     * edits away, or a quarter of its length (picocli ranks every name, so its first for
     * {@code frobnicate} is {@code status}), or null.
     */
    static String nearest(String typed, List<String> suggestions) {
        for (String s : suggestions) {
            if (edits(typed, s) <= Math.max(2, typed.length() / 4)) {
                return s;
            }
        }
        return null;
    }

    /** Levenshtein distance: insertions, deletions and substitutions from {@code a} to {@code b}. */
    private static int edits(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1), diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
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
