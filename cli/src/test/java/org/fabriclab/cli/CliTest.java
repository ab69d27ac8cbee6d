package org.fabriclab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The shared conventions: bad values refused while parsing with one line and exit 2, deprecated spellings working with one warning. */
class CliTest {
    /** What a toy command saw, and what it printed. */
    record Run(int code, String out, String err, Toy toy) {
    }

    static final class Colours extends NamedValues<Integer> {
        Colours() {
            super("colour", Map.of("red", 1));
        }
    }

    @Command(name = "toy")
    static final class Toy implements Callable<Integer> {
        @Mixin
        LinkOptions link;
        @Mixin
        EngineOption engine;
        @Mixin
        LaneOptions lanes;
        @Option(names = "--duration", defaultValue = "100us", converter = TimeSpan.BareNanos.class)
        TimeSpan duration;
        @Option(names = "--colour", converter = Colours.class)
        Integer colour;
        @Option(names = "--topology", converter = TopologyArg.Converter.class)
        TopologyArg topology;
        @Option(names = "--write")
        String write;
        @Option(names = "--load", defaultValue = "0.5")
        double load;
        @Option(names = "--threads")
        int threads;
        @Option(names = "--seed")
        long seed;
        @Option(names = "--loads", split = ",")
        List<Double> loads;
        @DeprecatedSpelling(names = "--at", use = "--connect ENDPOINT")
        @Option(names = {"--connect", "--at"}, paramLabel = "ENDPOINT", defaultValue = "d:0")
        String connect;
        boolean ran;

        @Override
        public Integer call() throws IOException {
            ran = true;
            if (write != null) {
                Files.writeString(Path.of(write), "x");
            }
            return 0;
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Toy toy = new Toy();
        int code = Cli.execute(toy, args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString(), toy);
    }

    /** One line on stderr, exit 2, the command never ran. */
    private static void refused(Run r, String... mentions) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(!r.err().contains("Exception") && !r.err().contains("\tat "), "no stack trace: " + r.err());
        assertTrue(!r.toy().ran, "refused before the command ran");
        for (String m : mentions) {
            assertTrue(r.err().contains(m), m + " in " + r.err());
        }
    }

    @Test
    void durationsTakeUnits() {
        assertEquals(1500, TimeSpan.parse("1.5us").nanos());
        assertEquals(2_000_000, TimeSpan.parse("2ms").nanos());
        assertEquals(3_000_000_000L, TimeSpan.parse("3s").nanos());
        assertEquals(0, TimeSpan.parse("0").nanos());
        assertThrows(IllegalArgumentException.class, () -> TimeSpan.parse("5"));
        assertEquals("20us", TimeSpan.ofNanos(20_000).text());
        assertEquals(2, TimeSpan.parse("2s").wholeSeconds("--x"));
        assertThrows(IllegalArgumentException.class, () -> TimeSpan.parse("1500ms").wholeSeconds("--x"));
    }

    @Test
    void badValuesAreRefusedWithOneLineAndExitCode2() {
        refused(run("--duration", "fast"), "--duration", "'fast' is not a duration");
        refused(run("--link-latency", "100"), "--link-latency", "has no unit");
        refused(run("--colour", "blue"), "--colour", "'blue' is not a colour; use red");
        refused(run("--engine", "nosuch"), "--engine", "nosuch");
        refused(run("--topology", "fat-tree:k=3,levels=9x"), "--topology");
        refused(run("--topology", "file:/no/such/file.net"), "/no/such/file.net: no such file");
        refused(run("--no-such-option"), "--no-such-option");
        refused(run("--duratoin", "5us"), "Unknown options: '--duratoin'", "did you mean --duration?");
    }

    /** A number picocli itself parses is refused as the option, the value and what to give, not as picocli's bare "is not a double". */
    @Test
    void numbersPicocliParsesAreRefusedNamingTheOptionTheValueAndWhatToGive() {
        refused(run("--load", "abc"), "toy: Invalid value for option '--load': 'abc' is not a number; give a decimal number such as 0.5 or 1e-3 (default 0.5)");
        refused(run("--threads", "q"), "--threads': 'q' is not a whole number; give a whole number");
        refused(run("--threads", "1.5"), "--threads': '1.5' is not a whole number");
        // past the type's range: the bound passed, not the type's whole range (which offered --threads -2147483648)
        refused(run("--threads", "99999999999"), "--threads': '99999999999' is too large; give a whole number of at most 2147483647");
        refused(run("--threads", "-99999999999"), "--threads': '-99999999999' is too small; give a whole number of at least -2147483648");
        refused(run("--seed", "0xzz"), "--seed': '0xzz' is not a whole number");
        refused(run("--loads", "0.1,x"), "'--loads'", "'x' is not a number; give a decimal number");
        assertTrue(!run("--load", "abc").err().contains("is not a double"), "not picocli's wording");
        Run ok = run("--load", "0.25", "--threads", "3", "--seed", "-7", "--loads", "0.1,0.2");
        assertEquals(0, ok.code(), ok.err());
        assertEquals(0.25, ok.toy().load);
        assertEquals(List.of(0.1, 0.2), ok.toy().loads);
    }

    /** Lanes and buffers the switch core cannot take are refused while parsing, naming the option (not later, as a table or an overflow). */
    @Test
    void lanesAndBuffersAreCheckedWhileParsing() {
        Run ok = run("--vls", "15", "--buffer", "4096");
        assertEquals(0, ok.code(), ok.err());
        assertEquals(15, ok.toy().lanes.vls);
        assertEquals(4096, ok.toy().lanes.buffer);
        assertEquals(2, run().toy().lanes.vls, "the default");
        refused(run("--vls", "0"), "--vls", "'0' is not a number of data lanes; give a whole number from 1 to 15");
        refused(run("--vls", "16"), "--vls", "from 1 to 15");
        refused(run("--vls", "two"), "--vls", "'two'");
        refused(run("--buffer", "0"), "--buffer", "'0' is not a buffer size in packets; give a whole number from 1 to 4096");
        refused(run("--buffer", "2000000000"), "--buffer", "1 to 4096");
        refused(run("--buffer", "99999999999999999999"), "--buffer", "1 to 4096");
    }

    @Command(name = "tool")
    static final class Tool implements Runnable {
        @Override
        public void run() {
        }
    }

    @Command(name = "status")
    static final class Status implements Runnable {
        @Override
        public void run() {
        }
    }

    @Command(name = "status")
    static final class Remote implements Runnable {
        @Option(names = "--server")
        String server;

        @Override
        public void run() {
        }
    }

    /** An option of the commands given before the command (fabricctl --server HOST:PORT status) is told to go after it. */
    @Test
    void anOptionOfTheCommandsGivenBeforeOneSaysWhereItGoes() {
        for (String[][] c : new String[][][] {
            {{"--server", "h:1", "status"}, {"tool: --server is an option of status, not of tool itself: give it after the command "
                    + "(tool status --server ...)"}},
            {{"--server=h:1", "status"}, {"tool: --server is an option of status"}},
            {{"--server", "h:1", "sweep"}, {"tool: --server is an option of status, not of tool itself: give it after the command (tool status"}},
            {{"--nosuch", "status"}, {"tool: Unknown option: '--nosuch'"}},
            {{"status", "extra"}, {"tool status: 'extra' is an argument more than tool status takes (none; tool status --help shows them)"}},
        }) {
            StringWriter err = new StringWriter();
            picocli.CommandLine cl = Cli.commandLine(new Tool(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            cl.addSubcommand("status", new Remote());
            cl.addSubcommand("sweep", new Status());
            assertEquals(Cli.BAD_INPUT, cl.execute(c[0]));
            assertTrue(err.toString().strip().startsWith(c[1][0]), err.toString());
            assertEquals(1, err.toString().strip().lines().count(), err.toString());
        }
    }

    /** A word that is no command of a command with commands: one line listing them, and the nearest if there is one. */
    @Test
    void anUnknownCommandListsTheCommands() {
        for (String[] c : new String[][] {
            {"frobnicate", "tool: 'frobnicate' is not a command; give one of status, sweep"},
            {"statsu", "tool: 'statsu' is not a command; give one of status, sweep (did you mean status?)"},
        }) {
            StringWriter err = new StringWriter();
            picocli.CommandLine cl = Cli.commandLine(new Tool(), new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            cl.addSubcommand("status", new Status());
            cl.addSubcommand("sweep", new Status());
            assertEquals(Cli.BAD_INPUT, cl.execute(c[0]));
            assertEquals(c[1], err.toString().strip());
        }
    }

    /** A fabric without hosts (a generator's host count 0, a net file of switches) is refused naming the parameter: nothing routes or runs on it. */
    @Test
    void aFabricWithoutHostsIsRefusedNamingTheParameter(@TempDir Path dir) throws IOException {
        refused(run("--topology", "dragonfly:p=0,a=4,h=2"),
                "'--topology': dragonfly:p=0,a=4,h=2 has no hosts: p is the number of hosts on each router; give p=1 or more");
        refused(run("--topology", "dragonfly-plus:p=0,leaves=2,spines=2,h=1"), "p is the number of hosts on each leaf; give p=1 or more");
        refused(run("--topology", "torus:4x4,hosts=0"), "hosts is the number of hosts on each switch; give hosts=1 or more");
        refused(run("--topology", "mesh:3,hosts=0"), "give hosts=1 or more");
        refused(run("--topology", "rlft:leaves=2,hosts=0"), "hosts is the number of hosts on each leaf");
        refused(run("--topology", "random:switches=4,degree=2,hosts=0"), "give hosts=1 or more");
        refused(run("--topology", "random:switches=4,degree=2,hosts=-1"), "random: hosts must be >= 0");
        refused(run("--topology", "dragonfly:p=-1,a=4,h=2"), "dragonfly: need p >= 0");
        Path net = dir.resolve("switches.net");
        Files.writeString(net, "Switch 2 \"S1\"\n[1] \"S2\"[1]\nSwitch 2 \"S2\"\n[1] \"S1\"[1]\n");
        refused(run("--topology", "file:" + net), "file:" + net + " has no hosts: no channel adapter (Ca) is cabled to a switch");
        assertEquals(0, run("--topology", "dragonfly:p=1,a=2,h=1").code(), "one host a router is a fabric");
    }

    /** A net file is read as UTF-8 text: a bad byte is refused on its line, a byte-order mark dropped, a directory named. */
    @Test
    void netFilesNameTheLineOfABadByte(@TempDir Path dir) throws IOException {
        Path net = dir.resolve("f.net");
        byte[] head = "\uFEFFSwitch 2 \"S1\"\n[1] \"H1\"[1]\nHca 1 \"H1\"\n[1] \"S1\"[1]\n".getBytes(StandardCharsets.UTF_8);
        Files.write(net, head);
        Run ok = run("--topology", "file:" + net);
        assertEquals(0, ok.code(), ok.err());
        assertEquals(2, ok.toy().topology.fabric().nodeCount());
        byte[] bad = Arrays.copyOf(head, head.length + 3);
        bad[head.length] = '#';
        bad[head.length + 1] = (byte) 0xFF;
        bad[head.length + 2] = '\n';
        Files.write(net, bad);
        refused(run("--topology", "file:" + net), net + ":5: column 2: bytes that are not UTF-8 text");
        refused(run("--topology", "file:" + dir), dir + ": is a directory, not a net file");
    }

    @Test
    void goodValuesParse() {
        Run r = run("--duration", "2ms", "--colour", "red", "--link-latency", "1us", "--topology", "torus:4x4");
        assertEquals(0, r.code(), r.err());
        assertEquals("", r.err());
        assertEquals(2_000_000, r.toy().duration.nanos());
        assertEquals(1, r.toy().colour);
        assertEquals(1000, r.toy().link.latencyNs(7));
        assertEquals(16, r.toy().topology.fabric().switchCount());
        assertEquals(7, run().toy().link.latencyNs(7), "the command's default");
    }

    @Test
    void oldSpellingsWorkWithOneWarningNamingTheNewOne() {
        Run r = run("--link-latency-ns", "300");
        assertEquals(0, r.code(), r.err());
        assertEquals(300, r.toy().link.latencyNs(0));
        assertEquals("toy: --link-latency-ns is deprecated and goes away in the next release; use --link-latency TIME", r.err().strip());

        Run at = run("--at", "h:1");
        assertEquals("h:1", at.toy().connect, "the old name of a renamed option still sets it");
        assertEquals("toy: --at is deprecated and goes away in the next release; use --connect ENDPOINT", at.err().strip());
        Run connect = run("--connect", "h:2");
        assertEquals("h:2", connect.toy().connect);
        assertEquals("", connect.err(), "the new name: no warning");
        assertEquals("d:0", run().toy().connect, "the default, once");
        StringWriter help = new StringWriter();
        Cli.commandLine(new Toy(), new PrintWriter(help, true), new PrintWriter(new StringWriter(), true)).usage(new PrintWriter(help, true));
        String synopsis = help.toString().substring(0, help.toString().indexOf('\n', help.toString().indexOf("[--connect")));
        assertTrue(synopsis.contains("[--connect=ENDPOINT]") && !synopsis.contains("--at"),
                "the synopsis shows the new name (picocli's showed the shortest, the old one): " + help);

        Run bare = run("--duration", "5000");
        assertEquals(5000, bare.toy().duration.nanos());
        assertEquals("toy: --duration 5000 without a unit is deprecated; write 5000ns", bare.err().strip());
    }

    /** A file the command could not write: one line naming it, exit 1, no stack trace. */
    @Test
    void anIoFailureIsOneLineNotAStackTrace() {
        Run r = run("--write", "/no-such-directory/report.svg");
        assertEquals(Cli.FAILED, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith("toy: ") && r.err().contains("/no-such-directory/report.svg"), r.err());
        assertTrue(!r.err().contains("\tat "), "no stack trace: " + r.err());
    }
}
