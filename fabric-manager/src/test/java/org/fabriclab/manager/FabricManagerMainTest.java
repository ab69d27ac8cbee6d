package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fabriclab.cli.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon's command line refuses bad values before it starts anything: no fabric, no port bound. */
class FabricManagerMainTest {
    /** Exit code and standard error of one command line. */
    private static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Cli.execute(new FabricManagerMain(), args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new String[] {Integer.toString(code), err.toString()};
    }

    private static void refused(String[] r, String... mentions) {
        assertEquals("2", r[0], r[1]);
        assertEquals(1, r[1].strip().lines().count(), "one line: " + r[1]);
        assertTrue(r[1].startsWith("fabric-manager: "), r[1]);
        assertFalse(r[1].contains("Exception") || r[1].contains("\tat "), "no stack trace: " + r[1]);
        for (String m : mentions) {
            assertTrue(r[1].contains(m), m + " in " + r[1]);
        }
    }

    @Test
    void badValuesAreRefusedBeforeAnythingStarts() {
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--traffic", "tornado"), "--traffic",
                "'tornado' is not a live traffic pattern; use uniform, permutation, all-to-all, group-shift, none");
        refused(run("--emulate", "dragonfly:p=2,a=4,h=2", "--traffic", "adv+9"), "Invalid value for option '--traffic': 'adv+9' does not "
                + "fit the fabric", "hosts are in 9 (adv+1 to adv+8)");
        refused(run("--emulate", "dragonfly:p=2,a=4,h=2", "--traffic", "adv+x"), "--traffic", "'adv+x' is not an adversarial pattern");
        refused(run("--emulate", "fat-tree:k=4,levls=2"), "--emulate", "levls");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--engine", "nosuch"), "--engine", "nosuch");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--perf-interval", "often"), "--perf-interval", "'often' is not a duration");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--sweep-interval", "1500ms"), "--sweep-interval is whole seconds, not 1500ms");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--sm-priority", "16"), "--sm-priority must be 0..15");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--sm-guid", "xyz"), "--sm-guid must be up to 16 hex digits, not 'xyz'");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--sm-guid", "0x0"), "--sm-guid 0 is no GUID (0 is reserved)");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--top-flows", "-1"), "--top-flows must be 0 or more, not -1");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--cc", "swift", "--cc-param", "beta=2"), "swift needs", "beta in (0, 1]");
        refused(run("--connect", "localhost:50100", "--cc", "dcqcn"), "--cc sets the embedded fabric's hosts (--emulate)");
        refused(run("--connect", "localhost:50100", "--job", "name=a,hosts=4"), "--job runs on the embedded fabric's hosts (--emulate)");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=a,hosts=4,pattern=tornado"), "Invalid value for option '--job'",
                "job a: unknown pattern \"tornado\"");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=a,hosts=40"), "job a asks for 40 hosts; 16 are left of the fabric's 16");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=pp,hosts=3,pattern=ping-pong"), "Invalid value for option '--job'",
                "ping-pong runs between two hosts: give hosts=2, not 3");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=b,hosts=4,pattern=broadcast,load=0.1"), "broadcast is closed-loop",
                "no load=");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=b,hosts=4,placement=random", "--job-seed", "nope"), "--job-seed",
                "'nope'");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=a,hosts=4", "--traffic", "uniform"), "--traffic is every host's",
                "pattern= key");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--job", "name=a,hosts=4", "--traffic-gbps", "200"), "--traffic-gbps 200.0 of the "
                + "100.0 Gbps links");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--metrics-address", "no.such.host.invalid"), "--metrics-address 'no.such.host.invalid'");
        refused(run(), "give exactly one of --emulate SPEC (embedded fabric) or --connect HOST:PORT");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--time-dilation", "0.5"), "--time-dilation", "0.5 is out of range 1..1000");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--time-dilation", "1001"), "--time-dilation", "out of range 1..1000");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--time-dilation", "fast"), "--time-dilation",
                "\"fast\" is neither a number D (1..1000) nor auto");
    }

    @Test
    void badSecurityOptionsAreRefusedBeforeAnythingStarts(@TempDir Path dir) throws Exception {
        String[] base = {"--emulate", "fat-tree:k=4,levels=2", "--state-dir", dir.toString()};
        refused(run(concat(base, "--m-key", "0")), "--m-key: 0 is not an M_Key", "--m-key none");
        refused(run(concat(base, "--m-key", "xyz")), "--m-key", "up to 16 hex digits", "'xyz'");
        refused(run(concat(base, "--m-key", "none", "--m-key-file", dir.resolve("k").toString())), "--m-key or --m-key-file, not both");
        refused(run(concat(base, "--m-key-file", dir.resolve("missing").toString())), "--m-key-file", "cannot read");
        refused(run(concat(base, "--admin-tls-cert", dir.resolve("c.pem").toString())), "both --admin-tls-cert and --admin-tls-key");
        Path notPem = dir.resolve("c.pem");
        Files.writeString(notPem, "hello\n");
        refused(run(concat(base, "--admin-tls-cert", notPem.toString(), "--admin-tls-key", notPem.toString())), "--admin-tls-cert", "c.pem");
        Path shortToken = dir.resolve("token");
        Files.writeString(shortToken, "abc\n");
        refused(run(concat(base, "--admin-token-file", shortToken.toString())), "--admin-token-file", "at least 16");
        refused(run(concat(base, "--admin-address", "no.such.host.invalid")), "--admin-address 'no.such.host.invalid'");
        assertFalse(Files.exists(dir.resolve(MKeys.FILE)), "nothing started, no key made");
        // the state directory is made last of the checks: a command refused for another reason leaves none behind
        Path state = dir.resolve("state");
        refused(run("--emulate", "fat-tree:k=4,levels=2", "--state-dir", state.toString(), "--top-flows", "-1"), "--top-flows");
        refused(run("--connect", "localhost:50100", "--state-dir", state.toString(), "--cc", "dcqcn"), "--cc sets");
        assertFalse(Files.exists(state), "no state directory left by a refused command");
    }

    /**
     * Rates of 0 or less, an interval of 0, a port out of range or held by another process, and an
     * endpoint whose host does not resolve: one line each, before the fabric is built (an emulated
     * fabric would log its start; these runs log nothing).
     */
    @Test
    void ratesPortsAndHostsAreCheckedBeforeAnythingStarts() throws Exception {
        String[] e = {"--emulate", "fat-tree:k=4,levels=2"};
        refused(run(concat(e, "--traffic-gbps", "-1")), "--traffic-gbps", "'-1' is not a rate above 0");
        refused(run(concat(e, "--traffic-gbps", "0")), "--traffic-gbps", "'0' is not a rate above 0");
        refused(run(concat(e, "--traffic-gbps", "150")), "--traffic-gbps': 150.0 Gbps per host is above the 100.0 Gbps links");
        refused(run(concat(e, "--link-gbps", "0")), "--link-gbps", "'0' is not a rate above 0");
        refused(run(concat(e, "--link-gbps", "NaN")), "--link-gbps");
        refused(run(concat(e, "--perf-interval", "0")), "--perf-interval must be above 0, not 0");
        refused(run(concat(e, "--perf-interval", "500us")), "--perf-interval must be 1ms or more, not 500us");
        refused(run(concat(e, "--admin-port", "70000")), "--admin-port 70000 is not a TCP port (0..65535; 0 takes any free one)");
        // a state directory it cannot keep state in: refused naming the option (was warnings after the start, the M_Key's first)
        refused(run(concat(e, "--state-dir", "/proc/fabriclab-state", "--admin-port", "0", "--metrics-port", "0")),
                "--state-dir /proc/fabriclab-state: cannot keep state there (it cannot be made there); give a directory this user can write");
        Path file = Files.createTempFile("state", ".txt");
        try {
            refused(run(concat(e, "--state-dir", file.toString(), "--admin-port", "0", "--metrics-port", "0")),
                    "--state-dir " + file + ": cannot keep state there (a file, not a directory)");
        } finally {
            Files.delete(file);
        }
        // one port for both servers: refused before the fabric starts (the metrics server's bind failed after it, as 'another process')
        refused(run(concat(e, "--admin-port", "45678", "--metrics-port", "45678")),
                "--admin-port and --metrics-port are both 45678: each server needs a port of its own");
        refused(run(concat(e, "--admin-port", "45678", "--metrics-port", "45678", "--metrics-address", "0.0.0.0")), "are both 45678");
        // an address this machine does not have (TEST-NET-2): refused before the fabric starts, as not this machine's, even with port 0
        refused(run(concat(e, "--metrics-address", "198.51.100.7", "--metrics-port", "0", "--admin-port", "0")),
                "--metrics-port 0: cannot listen on 198.51.100.7", "it is not an address of this machine");
        refused(run(concat(e, "--admin-address", "198.51.100.7", "--admin-port", "0", "--metrics-port", "0")),
                "--admin-port 0: cannot listen on 198.51.100.7", "not an address of this machine");
        try (ServerSocket held = new ServerSocket(0)) {
            String port = Integer.toString(held.getLocalPort());
            refused(run(concat(e, "--admin-port", port, "--metrics-port", "0")), "--admin-port " + port + ": cannot listen on port " + port,
                    "another process holds it?");
            refused(run(concat(e, "--admin-port", "0", "--metrics-port", port)), "--metrics-port " + port + ": cannot listen on port " + port);
        }
        refused(run("--connect", "no.such.host.invalid:50100/2c9", "--admin-port", "0", "--metrics-port", "0"),
                "--connect: host 'no.such.host.invalid' does not resolve");
        refused(run("--connect", "localhost", "--admin-port", "0", "--metrics-port", "0"), "--connect 'localhost' is not HOST:PORT or HOST:PORT/GUID");
        refused(run("--connect", "localhost:50100/not-hex", "--admin-port", "0", "--metrics-port", "0"), "is not HOST:PORT or HOST:PORT/GUID");
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** An engine parameter the chain does not read, or a value its engine would refuse, is refused before the fabric starts. */
    @Test
    void engineParametersAreCheckedBeforeAnythingStarts(@TempDir Path dir) {
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "alpha=2"),
                "--engine-param for q-adaptive: alpha=2.0 is outside 0..1");
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "qtable_seed=random"),
                "--engine-param for q-adaptive: qtable_seed=random is no seed policy; there are minimal (the paper's), hops "
                        + "(hop count x hop_ns), zero, and snapshot:NAME (a snapshot the daemon keeps)");
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "qtable_seed=snapshot:../etc"),
                "qtable_seed=snapshot:../etc: the snapshot's name is not 1 to 64 letters");
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "qtable_seed=snapshot:nope",
                "--state-dir", dir.toString()), "--engine-param qtable_seed=snapshot:nope: there is no snapshot of that name ("
                + dir.resolve("qtables").resolve("nope.qts") + ")");
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--engine-param", "foo=1"),
                "--engine-param foo: no engine of the chain q-adaptive reads it; they read alpha, beta, epsilon, global_latency_ns, hop_ns, "
                        + "link_gbps, local_latency_ns, packet_bytes, q_thld1, q_thld2, qtable_seed");
        refused(run("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "minhop", "--engine-param", "alpha=0.3"),
                "--engine-param alpha: no engine of the chain minhop reads it (they take no parameters)");
    }

    /** {@code --seed ENDPOINT} is the old spelling of {@code --connect}: it still counts as one, with a warning. */
    @Test
    void theOldSeedSpellingIsStillTheEndpoint() {
        String[] r = run("--emulate", "fat-tree:k=4,levels=2", "--seed", "localhost:1");
        assertEquals("2", r[0], r[1]);
        assertTrue(r[1].contains("fabric-manager: --seed is deprecated and goes away in the next release; use --connect ENDPOINT"), r[1]);
        assertTrue(r[1].contains("give exactly one of --emulate SPEC (embedded fabric) or --connect HOST:PORT"), r[1]);
    }

    /** {@code --max-flow-metrics N} is the old spelling of {@code --top-flows K}: it still works, with a warning. */
    @Test
    void theOldFlowLimitSpellingIsTheTopFlows() {
        String[] r = run("--emulate", "fat-tree:k=4,levels=2", "--connect", "localhost:1", "--max-flow-metrics", "5");
        assertTrue(r[1].contains("fabric-manager: --max-flow-metrics is deprecated and goes away in the next release; use --top-flows K"), r[1]);
    }
}
