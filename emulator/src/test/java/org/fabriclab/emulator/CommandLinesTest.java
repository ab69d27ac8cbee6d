package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.fabriclab.emulator.SimCommandTest.Run;
import org.junit.jupiter.api.Test;

/** The subcommands other than sim: their options refused or accepted as the CLI conventions say, reports parsed as JSON. */
class CommandLinesTest {
    private static Run run(String... args) {
        return SimCommandTest.run(args);
    }

    private static void refused(Run r, String command, String... mentions) {
        SimCommandTest.assertRefused(r, command, mentions);
    }

    @Test
    void scenarioReportsTheContractFieldsAndTakesTheOldRoutingSpelling() {
        Run now = run("scenario", "ib-ar-c1-s1", "--adaptive", "off", "--phase", "50us", "--json");
        Run old = run("scenario", "ib-ar-c1-s1", "--routing", "dr", "--phase", "50us", "--json");
        assertEquals(0, now.code(), now.err());
        assertEquals(0, old.code(), old.err());
        JsonNode j = now.json();
        assertEquals("ib-ar-c1-s1", j.path("scenario").asText());
        assertEquals("dr", j.path("routing").asText());
        assertEquals("simulated", j.path("clock").asText());
        assertEquals(200.0, j.path("linkGbps").asDouble());
        JsonNode flow = j.path("phases").path(0).path("flows").path(0);
        assertTrue(flow.path("src").isTextual() && flow.path("throughputGbps").isNumber() && flow.path("share").isNumber(), j.toString());
        assertTrue(j.path("phases").path(0).path("jainIndex").isNumber(), j.toString());
        assertEquals(j, old.json(), "the same report under the old spelling");
        assertEquals("emulator scenario: --routing is deprecated and goes away in the next release; use --adaptive on|off (ar is on, dr off)",
                old.err().strip());
    }

    /** A scenario's hosts run the congestion control asked for, and the report says which, with its parameters. */
    @Test
    void scenarioReportsItsCongestionControl() {
        Run r = run("scenario", "ib-ar-c2-s5", "--cc", "dcqcn", "--cc-param", "timer_us=30", "--phase", "50us", "--json");
        assertEquals(0, r.code(), r.err());
        assertEquals("dcqcn", r.json().path("cc").asText());
        assertEquals(30.0, r.json().path("ccParams").path("timer_us").asDouble());
        Run none = run("scenario", "ib-ar-c2-s5", "--phase", "50us", "--json");
        assertTrue(none.json().path("cc").isMissingNode(), "without --cc the report is as it was");
    }

    @Test
    void badValuesAreRefusedBeforeAnythingStarts() {
        refused(run("scenario", "ib-ar-c1-s1", "--routing", "sometimes"), "emulator scenario", "--routing", "'sometimes'", "dr, ar");
        refused(run("scenario", "ib-ar-c1-s1", "--phase", "long"), "emulator scenario", "--phase", "'long' is not a duration");
        // a phase of 0 was refused as "flow Flow[src=0, dst=3, startNs=0, stopNs=0, ...] needs ... start < stop"; live, 500us ran 0 ms phases
        refused(run("scenario", "ib-ar-c1-s1", "--phase", "0s"), "emulator scenario", "--phase must be above 0, not 0s");
        refused(run("scenario", "ib-ar-c1-s1", "--live", "--phase", "500us"), "emulator scenario",
                "--phase 500us is shorter than a live phase's millisecond; give 1ms or more");
        refused(run("scenario", "ib-ar-c1-s1", "--warmup", "2000"), "emulator scenario", "--warmup", "has no unit");
        refused(run("scenario", "no-such-scenario"), "emulator scenario", "no-such-scenario");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--traffic", "tornado"), "emulator up",
                "'tornado' is not a live traffic pattern; use uniform, permutation, all-to-all, group-shift, none");
        refused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--traffic", "adv+9"), "emulator up",
                "Invalid value for option '--traffic': 'adv+9' does not fit the fabric", "hosts are in 9 (adv+1 to adv+8)");
        refused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--traffic", "adv+0"), "emulator up", "--traffic", "'adv+0'");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--traffic", "group-shift"), "emulator up", "--traffic",
                "group-shift traffic needs hosts in two or more groups");
        refused(run("up", "--topology", "no-such-kind:x=1"), "emulator up", "--topology", "no-such-kind");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--exit-after", "soon"), "emulator up", "--exit-after");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--management-address", "0.0.0.0"), "emulator up",
                "--management-address 0.0.0.0 binds every interface: give --advertise-host HOST");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--management-address", "0.0.0.0", "--advertise-host", "localhost"),
                "emulator up", "--advertise-host localhost names this machine's loopback", "or for a one-machine lab bind "
                        + "--management-address 127.0.0.1 (the default)");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--switch-agents", "sw:1:2"), "emulator up",
                "--switch-agents 'sw' is not a host pattern");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--switch-agents", "sw-{index}:50100:x"), "emulator up",
                "is not HOST_PATTERN:MANAGEMENT_PORT:DATA_PORT");
        refused(run("up", "--topology", "fat-tree:k=4,levels=3", "--switch-agents", "sw-{index}:50100:50200", "--processes"), "emulator up",
                "not both");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--management-address", "no.such.host.invalid"), "emulator up",
                "--management-address 'no.such.host.invalid' is not an address of this machine");
        refused(run("bench-forwarding", "--warmup", "3 days"), "emulator bench-forwarding", "--warmup");
        refused(run("bench-forwarding", "--ports", "1"), "emulator bench-forwarding", "--ports must be 2..254");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--traffic", "uniform", "--traffic-gbps", "-1"), "emulator up",
                "--traffic-gbps", "'-1' is not a rate above 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--traffic-gbps", "0"), "emulator up", "'0' is not a rate above 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--traffic", "uniform", "--traffic-gbps", "20", "--link-gbps", "10"),
                "emulator up", "--traffic-gbps': 20.0 Gbps per host is above the 10.0 Gbps links (--link-gbps)", "give at most 10.0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--link-gbps", "0"), "emulator up", "--link-gbps", "'0' is not a rate above 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--threads", "0"), "emulator up", "--threads must be 1..256, not 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--management-port", "-3"), "emulator up", "--management-port -3 is not a TCP port");
        refused(run("scenario", "ib-ar-c1-s1", "--live", "--link-gbps", "-1"), "emulator scenario", "--link-gbps", "'-1' is not a rate above 0");
        refused(run("sim", "--topology", "fat-tree:k=2,levels=2", "--link-gbps", "0"), "emulator sim", "'0' is not a rate above 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--link-latency", "10s"), "emulator up", "--link-latency 10s is more than a live link takes");
        refused(run("bench-forwarding", "--duration", "0"), "emulator bench-forwarding", "--duration must be above 0, not 0");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--cc", "reno"), "emulator up", "--cc", "\"reno\" is not a congestion control",
                "none, dcqcn, swift");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--cc-param", "g=0.1"), "emulator up", "--cc-param needs --cc dcqcn, swift, rl-cc or ack-only");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--cc", "dcqcn", "--cc-param", "target_us=3"), "emulator up",
                "--cc-param target_us: dcqcn has no such parameter");
        refused(run("bench-forwarding", "--payload", "-5"), "emulator bench-forwarding", "--payload must be 0..");
        refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--source-queue", "0"), "emulator up",
                "Invalid value for option '--source-queue': 0 packets; give 1..1048576");
        // a closed loop that may queue more at a rank than the live hosts' queue holds, as emulator sim refuses it
        refused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--source-queue", "64", "--job",
                "name=bc,hosts=8,pattern=broadcast,message=64KiB"), "emulator up", "job bc (broadcast of 8 ranks) may queue 3 messages of 32 "
                + "packets at one rank at once, 96 packets, more than a host's source queue holds (64)", "--source-queue");
    }

    /** A management port another process listens on is one line naming the port, before the fabric is built. */
    @Test
    void aBusyManagementPortIsRefusedBeforeTheFabricStarts() throws Exception {
        try (java.net.ServerSocket held = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int port = held.getLocalPort();
            refused(run("up", "--topology", "fat-tree:k=2,levels=2", "--management-port", Integer.toString(port)), "emulator up",
                    "--management-port " + port + ": cannot listen on port " + port + " of 127.0.0.1", "Give another port, or 0");
        }
    }

    /** {@code up --management-port 0} serves on a free TCP port and prints it (it printed "--connect null"). */
    @Test
    void upOnAnyFreePortPrintsItsEndpoint() {
        Run r = run("up", "--topology", "fat-tree:k=2,levels=2", "--management-port", "0", "--exit-after", "100ms");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s)fabric up: .*--connect localhost:[1-9][0-9]*/[0-9a-f]+\\s*"), r.out());
    }

    /** Bound beyond loopback, every endpoint names the host given to reach it by. */
    @Test
    void upAdvertisesTheHostItIsToldOf() {
        Run r = run("up", "--topology", "fat-tree:k=2,levels=2", "--management-port", "0", "--management-address", "127.0.0.1",
                "--advertise-host", "fabriclab-fabric.lab.svc", "--exit-after", "100ms");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().matches("(?s)fabric up: .*--connect fabriclab-fabric\\.lab\\.svc:[1-9][0-9]*/[0-9a-f]+\\s*"), r.out());
    }

    /** --cc-param's help names every parameter of every congestion control (it lists them by hand). */
    @Test
    void ccParamsHelpNamesEveryParameter() throws Exception {
        String help = String.join(" ", org.fabriclab.emulator.cli.CcOptions.class.getDeclaredField("params")
                .getAnnotation(picocli.CommandLine.Option.class).description());
        for (String cc : org.fabriclab.agent.core.CongestionControl.NAMES) {
            var s = org.fabriclab.agent.core.CongestionControl.settings(cc, java.util.Map.of());
            for (String key : s == null ? java.util.Set.<String>of() : s.values().keySet()) {
                assertTrue(help.contains(key), cc + "'s " + key + " in --cc-param's help: " + help);
            }
        }
    }
}
