package org.fabriclab.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.agent.SwitchAgentMain;
import org.fabriclab.emulator.EmulatorMain;
import org.fabriclab.manager.FabricManagerMain;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The launchers a container of the chart runs (its image's entry point is the module's main), and
 * their command lines as picocli defines them: a rendered container's args are checked against
 * the very options the mains declare, so a renamed or removed option fails the chart's tests.
 */
enum Launcher {
    FABRIC_MANAGER("fabric-manager", () -> new CommandLine(new FabricManagerMain())),
    /** {@code emulator up}: the container's args start with the subcommand. */
    EMULATOR("emulator", () -> new CommandLine(new EmulatorMain())),
    SWITCH_AGENT("switch-agent", () -> new CommandLine(new SwitchAgentMain()));

    /** {@code $(NAME)}: Kubernetes' expansion of a container's environment variable in its args. */
    private static final Pattern ENV_REF = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    /** The image name and the container name the chart gives it. */
    final String image;
    private final Supplier<CommandLine> commandLine;

    Launcher(String image, Supplier<CommandLine> commandLine) {
        this.image = image;
        this.commandLine = commandLine;
    }

    static Launcher ofImage(String image) {
        for (Launcher l : values()) {
            if (image.equals(l.image)) {
                return l;
            }
        }
        throw new AssertionError("no launcher for the image " + image);
    }

    /**
     * The container's args parsed by the launcher's picocli command, each {@code $(VAR)} first
     * replaced as Kubernetes does, from {@code env} (a reference to a variable the container does
     * not define, which Kubernetes would leave as it is, fails): every {@code --flag} must be an
     * option of the command (of {@code up} for the emulator), and every value must convert.
     */
    Parsed parse(List<String> args, Map<String, String> env) {
        List<String> expanded = new ArrayList<>();
        for (String a : args) {
            Matcher m = ENV_REF.matcher(a);
            StringBuilder b = new StringBuilder();
            while (m.find()) {
                String value = env.get(m.group(1));
                if (value == null) {
                    throw new AssertionError(image + ": " + a + " refers to $(" + m.group(1) + "), which the container does not define");
                }
                m.appendReplacement(b, Matcher.quoteReplacement(value));
            }
            m.appendTail(b);
            expanded.add(b.toString());
        }
        CommandLine cl = commandLine.get();
        CommandSpec spec = this == EMULATOR ? cl.getSubcommands().get(expanded.get(0)).getCommandSpec() : cl.getCommandSpec();
        for (String a : expanded) {
            if (a.startsWith("--") && spec.findOption(a) == null) {
                throw new AssertionError(image + ": " + a + " is not an option of '" + spec.qualifiedName() + "' (" + spec.optionsMap().keySet() + ")");
            }
        }
        ParseResult r = cl.parseArgs(expanded.toArray(String[]::new));
        return new Parsed(this == EMULATOR ? r.subcommand() : r, spec);
    }

    /** A parsed command line: the options it gave, by name. */
    record Parsed(ParseResult result, CommandSpec spec) {
        /** The value given to {@code option} (any of its names), or null when the command line does not give it. */
        String value(String option) {
            OptionSpec o = result.matchedOption(option);
            return o == null || o.originalStringValues().isEmpty() ? null : o.originalStringValues().get(o.originalStringValues().size() - 1);
        }

        /** Whether the command declares {@code option}. */
        boolean declares(String option) {
            return spec.findOption(option) != null;
        }
    }
}
