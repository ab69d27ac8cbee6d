package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code emulator sim} as a user runs it: the report's contract fields, and what it says when it measured nothing. */
class SimCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Report fields that measure the machine, not the simulation (as bench's SameReports ignores them). */
    static final Set<String> MACHINE = Set.of("wallMillis", "eventsPerSecond", "packetHopsPerSecond", "cpuMillis",
            "packetHopsPerCpuSecond", "routingMillis");

    /** Exit code, standard output and standard error of one command line. */
    record Run(int code, String out, String err) {
        JsonNode json() {
            try {
                return JSON.readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not one JSON object: " + out, e);
            }
        }
    }

    /**
     * {@code a} and {@code b} with the same fields, in the same order, and but for the machine's
     * ({@link #MACHINE}, at any depth) the very same values: doubles bit for bit.
     */
    static void assertSameSimulation(JsonNode a, JsonNode b, String where) {
        if (a.isObject()) {
            assertEquals(names(a), names(b), where + ": the same fields");
            for (String f : names(a)) {
                if (!MACHINE.contains(f)) {
                    assertSameSimulation(a.get(f), b.get(f), where + "." + f);
                }
            }
        } else if (a.isArray()) {
            assertEquals(a.size(), b.size(), where + ": the same length");
            for (int k = 0; k < a.size(); k++) {
                assertSameSimulation(a.get(k), b.get(k), where + "[" + k + "]");
            }
        } else if (a.isDouble()) {
            assertTrue(b.isDouble() && Double.doubleToLongBits(a.asDouble()) == Double.doubleToLongBits(b.asDouble()),
                    where + ": " + a + " against " + b);
        } else {
            assertEquals(a, b, where);
        }
    }

    private static List<String> names(JsonNode n) {
        List<String> out = new ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** {@code r} was refused before anything started: exit code 2, one line from {@code command} naming each of {@code mentions}, no stack trace, no output. */
    static void assertRefused(Run r, String command, String... mentions) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        assertTrue(r.err().startsWith(command + ": "), r.err());
        for (String m : mentions) {
            assertTrue(r.err().contains(m), m + " in " + r.err());
        }
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), "no stack trace: " + r.err());
        assertEquals("", r.out());
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = EmulatorMain.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void theReportCarriesTheContractFields() {
        Run r = run("sim", "--topology", "fat-tree:k=4,levels=3", "--load", "0.3", "--duration", "20us", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        for (String field : new String[] {"offeredLoad", "throughput", "latencyMeanNs", "latencyP95Ns", "latencyP99Ns", "meanHops",
                "packetsDelivered", "packetsDropped", "wallMillis", "eventsPerSecond", "packetHopsPerSecond"}) {
            assertTrue(j.path(field).isNumber(), field + " is a number in " + r.out());
        }
        assertEquals("minhop", j.path("routing").asText());
        assertEquals("uniform", j.path("pattern").asText());
        assertEquals("fat-tree:k=4,levels=3", j.path("topology").asText());
        assertEquals(1, j.path("seed").asLong());
        assertTrue(j.path("packetsDelivered").asLong() > 0, r.out());
        assertEquals("", r.err().strip(), "nothing to warn about");
    }

    /** A deadlocked fabric (minhop's credit loops on a one-lane torus) delivers nothing measured: no latency of 0, but null and the reason. */
    @Test
    void aRunThatMeasuredNoPacketSaysSoInsteadOfReportingZeroLatency() {
        Run r = run("sim", "--topology", "torus:4x4x4", "--vls", "1", "--load", "0.8", "--duration", "100us", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(0, j.path("packetsDelivered").asLong(), r.out());
        for (String field : new String[] {"latencyMeanNs", "latencyP95Ns", "latencyP99Ns", "meanHops"}) {
            assertTrue(j.has(field) && j.get(field).isNull(), field + " is null in " + r.out());
        }
        assertTrue(r.err().contains("no packet created after the warm-up") && r.err().contains("saturated or deadlocked"), r.err());
    }

    /** A window too short for any packet's trip says so, not that the fabric saturated. */
    @Test
    void aWindowTooShortForAnyTripSaysSo() {
        Run r = run("sim", "--topology", "fat-tree:k=4,levels=2", "--load", "0.1", "--duration", "1ns", "--warmup", "0ns", "--json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.err().contains("the measured window of 1 ns is shorter than packets take to cross a fabric")
                && !r.err().contains("saturated"), r.err());
    }

    /** The old spellings give the same report as the new ones, with one warning line each naming the new spelling. */
    @Test
    void oldSpellingsStillWorkWithAWarning() {
        Run now = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "updn", "--pattern", "group-shift", "--load", "0.4",
                "--duration", "20us", "--link-latency", "300ns", "--adaptive", "off", "--json");
        Run old = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--routing", "updn", "--pattern", "group-shift", "--load", "0.4",
                "--duration", "20000", "--latency-ns", "300", "--adaptive", "off", "--json");
        assertEquals(0, now.code(), now.err());
        assertEquals(0, old.code(), old.err());
        assertEquals("", now.err());
        for (String field : new String[] {"routing", "pattern", "throughput", "latencyMeanNs", "packetsDelivered", "events", "simulatedNs"}) {
            assertEquals(now.json().get(field), old.json().get(field), field);
        }
        assertEquals("updn", old.json().path("routing").asText());
        assertEquals(3, old.err().strip().lines().count(), old.err());
        assertTrue(old.err().contains("--routing is deprecated") && old.err().contains("use --engine"), old.err());
        assertTrue(old.err().contains("--latency-ns is deprecated") && old.err().contains("use --link-latency"), old.err());
        assertTrue(old.err().contains("--duration 20000 without a unit is deprecated; write 20000ns"), old.err());
    }

    /** A bad value is refused while parsing: one line naming the option and the value, exit code 2, no stack trace, no simulation. */
    @Test
    void badValuesAreRefusedBeforeAnythingStarts() {
        String[][] bad = {
            {"--pattern", "tornado", "'tornado' is not a traffic pattern; use uniform, permutation, all-to-all, group-shift"},
            {"--duration", "soon", "'soon' is not a duration"},
            {"--warmup", "1x", "'1x' is not a duration"},
            {"--engine", "nosuch", "nosuch"},
            {"--adaptive", "maybe", "'maybe' is not a setting; use on, off"},
            {"--topology", "fat-tree:k=4,levels=x", "--topology"},
            {"--duration", "0us", "--duration must be above 0, not 0us"},
            {"--vls", "16", "'16' is not a number of data lanes; give a whole number from 1 to 15"},
            {"--buffer", "2000000000", "'2000000000' is not a buffer size in packets"},
            {"--load", "abc", "Invalid value for option '--load': 'abc' is not a number; give a decimal number such as 0.5 or 1e-3"},
            {"--seed", "1e9", "Invalid value for option '--seed': '1e9' is not a whole number"},
        };
        for (String[] b : bad) {
            String[] args = b[0].equals("--topology") ? new String[] {"sim", b[0], b[1]}
                    : new String[] {"sim", "--topology", "fat-tree:k=4,levels=3", b[0], b[1]};
            assertRefused(run(args), "emulator sim", b[0], b[2]);
        }
    }

    /**
     * Buffers the simulator's packet pool cannot hold (15 lanes of 4,096-packet input and output
     * buffers on a 512-host fat tree: 346 million packets, above the 268 million one pool's int-indexed
     * headers take) are refused with the numbers and what to lower, not a NegativeArraySizeException.
     */
    @Test
    void buffersBeyondThePacketPoolAreRefusedWithTheirNumbers() {
        assertRefused(run("sim", "--topology", "fat-tree:k=8,levels=3", "--vls", "15", "--buffer", "4096", "--output-buffer", "4096"),
                "emulator sim", "the fabric's buffers hold 346,153,473 packets", "3,072 linked ports x 15 lanes x 4096 packets of input buffer",
                "2,560 switch ports x 15 x 4096 of output buffer", "512 hosts' send queues", "one packet pool holds at most 268,435,454",
                "lower --buffer, --output-buffer or --vls, or simulate a smaller fabric");
    }

    /** adv+1 is group-shift: the same traffic, so the same report, every simulated value bit for bit (and the same name). */
    @Test
    void adv1GivesGroupShiftsReportBitForBit() {
        String[] common = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--load", "0.5", "--duration", "20us", "--json", "--pattern"};
        Run shift = run(concat(common, "group-shift"));
        Run adv1 = run(concat(common, "adv+1"));
        assertEquals(0, shift.code(), shift.err());
        assertEquals(0, adv1.code(), adv1.err());
        assertSameSimulation(shift.json(), adv1.json(), "adv+1 against group-shift");
        assertEquals("group-shift", adv1.json().path("pattern").asText(), "one pattern, one name");
        Run adv4 = run(concat(common, "adv+4"));
        assertEquals(0, adv4.code(), adv4.err());
        assertEquals("adv+4", adv4.json().path("pattern").asText());
        assertTrue(adv4.json().path("packetsDelivered").asLong() > 0, adv4.out());
        assertTrue(adv4.json().path("throughput").asDouble() != shift.json().path("throughput").asDouble(), "adv+4 is other traffic");
    }

    /**
     * --routing-mode (issue 19): the report names the mode and the share of non-minimal decisions it
     * led to (NMIN_HASH: all of UGAL's), any spelling of a name is taken, an unknown one refused in
     * one line naming the valid ones; a run without it reports no such field.
     */
    @Test
    void routingModeIsReportedAndAnUnknownOneRefused() {
        String[] common = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-ugalg", "--vls", "3", "--pattern", "group-shift",
            "--load", "0.3", "--duration", "10us", "--json"};
        Run nmin = run(concat(common, "--routing-mode", "nmin-hash"));
        assertEquals(0, nmin.code(), nmin.err());
        assertEquals("NMIN_HASH", nmin.json().path("routingMode").asText());
        assertEquals(1.0, nmin.json().path("nonMinimalShare").asDouble(), nmin.out());
        Run none = run(common);
        assertTrue(none.json().path("routingMode").isMissingNode() && none.json().path("nonMinimalShare").isMissingNode(), none.out());
        assertSweepReports("df-ugalg", "3", "routingMode", "ADAPTIVE_2", "--routing-mode", "ADAPTIVE_2");
        assertRefused(run(concat(common, "--routing-mode", "ADAPTIVE_9")), "emulator sim", "--routing-mode",
                "'ADAPTIVE_9' is not a routing mode; use DEFAULT, ADAPTIVE_0, ADAPTIVE_1, ADAPTIVE_2, ADAPTIVE_3, MIN_HASH, NMIN_HASH, IN_ORDER");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--routing-mode", "fastest"), "emulator up", "--routing-mode",
                "'fastest' is not a routing mode");
    }

    /**
     * --arbitration: lru is reported (sim and sweep), the default round-robin adds no field (the
     * reports stay as they were), an unknown name is refused in one line naming the valid ones.
     */
    @Test
    void arbitrationIsReportedAndAnUnknownOneRefused() {
        String[] common = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-valn", "--vls", "4", "--output-buffer", "20",
            "--pattern", "adv+1", "--load", "0.2", "--duration", "10us", "--json"};
        Run lru = run(concat(common, "--arbitration", "lru"));
        assertEquals(0, lru.code(), lru.err());
        assertEquals("lru", lru.json().path("arbitration").asText(), lru.out());
        Run rr = run(concat(common, "--arbitration", "round-robin"));
        assertSameSimulation(run(common).json(), rr.json(), "round-robin is the default");
        assertTrue(rr.json().path("arbitration").isMissingNode(), rr.out());
        assertSweepReports("df-valn", "4", "arbitration", "lru", "--arbitration", "lru");
        assertRefused(run(concat(common, "--arbitration", "oldest")), "emulator sim", "--arbitration",
                "'oldest' is not a crossbar arbitration; use round-robin, lru");
    }

    /**
     * A one-point ADV+1 sweep of {@code engine} on {@code vls} lanes with {@code option} runs and
     * reports {@code field} as {@code value} in its options and in its point.
     */
    private static void assertSweepReports(String engine, String vls, String field, String value, String... option) {
        Run sweep = run(concat(new String[] {"sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", engine, "--vls", vls,
            "--pattern", "adv+1", "--loads", "0.3", "--duration", "10us", "--threads", "1", "--json"}, option));
        assertEquals(0, sweep.code(), sweep.err());
        assertEquals(value, sweep.json().path("options").path(field).asText(), sweep.out());
        assertEquals(value, sweep.json().path("engines").path(0).path("points").path(0).path(field).asText(), sweep.out());
    }

    /** adv+N that is malformed, or whose N reaches the sender's own group (dragonfly:p=2,a=4,h=2 has 9 groups), is refused before anything starts. */
    @Test
    void badAdversarialPatternsAreRefusedWithOneLine() {
        String[][] bad = {
            {"dragonfly:p=2,a=4,h=2", "adv+0", "'adv+0' is not an adversarial pattern"},
            {"dragonfly:p=2,a=4,h=2", "adv+x", "'adv+x' is not an adversarial pattern"},
            {"dragonfly:p=2,a=4,h=2", "adv+", "'adv+' is not an adversarial pattern"},
            {"dragonfly:p=2,a=4,h=2", "adv+9", "'adv+9' does not fit the fabric: adv+9 traffic sends to the group 9 after the sender's"},
            {"dragonfly:p=2,a=4,h=2", "adv+40", "hosts are in 9 (adv+1 to adv+8)"},
            {"fat-tree:k=4,levels=3", "adv+2", "adv+2 traffic needs hosts in two or more groups"},
            {"fat-tree:k=4,levels=3", "group-shift", "group-shift traffic needs hosts in two or more groups"},
            {"fat-tree:k=4,levels=3", "adv+1", "'group-shift' (adv+1) does not fit the fabric"}, // one pattern, both its names
        };
        for (String[] b : bad) {
            assertRefused(run("sim", "--topology", b[0], "--pattern", b[1], "--duration", "10us"), "emulator sim", "'--pattern'", b[2]);
        }
        Run ok = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--pattern", "adv+8", "--duration", "10us", "--json");
        assertEquals(0, ok.code(), "adv+8 is the last group before its own: " + ok.err());
    }

    /** --packet-bytes is the whole frame: 128 bytes is a 91-byte payload behind the 37-byte header, so the same run as --payload 91. */
    @Test
    void packetBytesIsTheWholeFrame() {
        String[] common = {"sim", "--topology", "fat-tree:k=4,levels=2", "--load", "0.6", "--duration", "20us", "--json"};
        Run bytes = run(concat(common, "--packet-bytes", "128"));
        Run payload = run(concat(common, "--payload", "91"));
        assertEquals(0, bytes.code(), bytes.err());
        assertSameSimulation(payload.json(), bytes.json(), "--packet-bytes 128 against --payload 91");
        Run defaults = run(common);
        assertTrue(defaults.json().path("packetHops").asLong() < bytes.json().path("packetHops").asLong(),
                "smaller packets at the same load: more of them");
        String[][] bad = {
            {"--packet-bytes", "36", "--packet-bytes': 36 is outside 37..4133"},
            {"--packet-bytes", "5000", "--packet-bytes': 5000 is outside 37..4133"},
            {"--payload", "5000", "--payload': 5000 is outside 0..4096"},
        };
        for (String[] b : bad) {
            assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", b[0], b[1]), "emulator sim", b[2]);
        }
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--packet-bytes", "128", "--payload", "91"), "emulator sim",
                "--payload and --packet-bytes both give the packet's size; give one");
        // what gives the traffic is one thing: a pattern, flows, or jobs
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--pattern", "uniform", "--all-to-all", "4"), "emulator sim",
                "--pattern is every host's traffic; --many-to-one, --all-to-all and --long-short give flows instead");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--short-bytes", "4096"), "emulator sim",
                "--short-bytes is the size of --long-short's short flows: give --long-short N too");
        assertRefused(run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--job", "name=a,hosts=8", "--all-to-all", "4"), "emulator sim",
                "--job and --all-to-all both give the traffic; give one");
    }

    /**
     * --series bins the whole run by delivery time: every bin's start and packets, latency null
     * where nothing arrived; the bins after the warm-up carry, together, exactly the report's
     * throughput (the same bytes over the same window), and the series is the only addition.
     */
    @Test
    void seriesBinsTheRunByDeliveryTime() {
        String[] common = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--pattern", "adv+2", "--load", "0.4", "--duration", "20us",
            "--json"};
        Run plain = run(common);
        Run r = run(concat(common, "--series", "2us"));
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(2000, j.path("seriesBinNs").asLong());
        JsonNode bins = j.path("series");
        assertEquals(10, bins.size());
        double windowThroughput = 0;
        long packets = 0;
        for (int b = 0; b < bins.size(); b++) {
            JsonNode bin = bins.get(b);
            assertEquals(2000L * b, bin.path("startNs").asLong());
            long n = bin.path("packetsDelivered").asLong();
            packets += n;
            assertTrue(n == 0 ? bin.path("latencyMeanNs").isNull() : bin.path("latencyMeanNs").asDouble() > 0, bin.toString());
            if (bin.path("startNs").asLong() >= 4000) { // the default warm-up: a fifth of 20 us
                windowThroughput += bin.path("throughput").asDouble() / 8;
            }
        }
        assertTrue(packets >= j.path("packetsDelivered").asLong(), "every packet delivered, the warm-up's too: " + packets);
        assertEquals(j.path("throughput").asDouble(), windowThroughput, 1e-9, "the window's bins carry the report's throughput");
        ((ObjectNode) j).remove(List.of("seriesBinNs", "series"));
        assertSameSimulation(plain.json(), j, "a series changes nothing else");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "1ms", "--series", "0"), "emulator sim",
                "--series': '0' is not a bin width");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "1s", "--series", "1ns"), "emulator sim",
                "at most 1000000 bins");
    }

    /**
     * --link-loads lists every switch-to-switch link each way, with the data it carried as a
     * fraction of the link rate over the whole run, and changes nothing else: on a dragonfly whose
     * routers have two links to each other group, both of a router's links to a group carry traffic.
     */
    @Test
    void linkLoadsListEverySwitchLinkAndChangeNothingElse() {
        String[] common = {"sim", "--topology", "dragonfly:p=4,a=4,h=4,g=3,trunk=8", "--engine", "df-min", "--load", "0.4",
            "--duration", "20us", "--json"};
        Run plain = run(common);
        Run r = run(concat(common, "--link-loads"));
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        JsonNode loads = j.path("linkLoads");
        assertEquals(12 * (3 + 4), loads.size(), "12 routers, 3 local and 4 global links each");
        java.util.Map<String, Double> toGroup = new java.util.TreeMap<>();
        for (JsonNode l : loads) {
            assertTrue(l.path("port").asInt() >= 1 && l.path("load").asDouble() >= 0 && l.path("load").asDouble() <= 1, l.toString());
            String from = l.path("from").asText();
            String group = l.path("to").asText().substring(0, l.path("to").asText().indexOf('_'));
            if (!from.startsWith(group + "_")) {
                assertTrue(l.path("load").asDouble() > 0.02, "every global link carries traffic: " + l);
                toGroup.merge(from + " " + group, 1.0, Double::sum);
            }
        }
        assertEquals(24, toGroup.size());
        assertTrue(toGroup.values().stream().allMatch(n -> n == 2), "two links from each router to each other group");
        ((ObjectNode) j).remove("linkLoads");
        assertSameSimulation(plain.json(), j, "link loads change nothing else");
    }

    /**
     * {@code --cc}: none runs the same simulation with the congestion-control fields added; a
     * many-to-one reports its flows, goodput and unfairness; a bad name, parameter or value is
     * refused with one line naming what is valid.
     */
    @Test
    void congestionControlOptionsAddTheirFieldsAndRefuseWhatIsNotValid() {
        String[] common = {"sim", "--topology", "fat-tree:k=4,levels=2", "--load", "0.5", "--duration", "20us", "--json"};
        JsonNode plain = run(common).json();
        JsonNode none = run(concat(common, "--cc", "none")).json();
        assertEquals("none", none.path("cc").asText());
        assertTrue(none.path("networkLatencyMeanNs").asDouble() > 0, none.toString());
        assertEquals(0, none.path("controlPackets").asLong(), "no congestion control, no control packet");
        ((ObjectNode) none).remove(List.of("cc", "ccParams", "networkLatencyMeanNs", "controlPackets", "controlShare"));
        assertSameSimulation(plain, none, "--cc none changes nothing else");
        Run m = run("sim", "--topology", "fat-tree:k=32,levels=1", "--many-to-one", "4", "--load", "1", "--duration", "200us",
                "--buffer", "32", "--output-buffer", "64", "--cc", "swift", "--cc-param", "target_us=2", "--json");
        assertEquals(0, m.code(), m.err());
        JsonNode j = m.json();
        assertEquals(4, j.path("flowGbps").size());
        assertEquals(2.0, j.path("ccParams").path("target_us").asDouble());
        assertEquals(0.8, j.path("ccParams").path("beta").asDouble(), "the rest at their defaults");
        assertTrue(j.path("goodput").asDouble() > 0.9 && j.path("flowCov").isNumber(), j.toString());
        String[] small = {"sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "10us"};
        assertRefused(run(concat(small, "--cc", "cubic")), "emulator sim", "'--cc'", "cubic", "none, dcqcn, swift, rl-cc");
        assertRefused(run(concat(small, "--cc", "swift", "--cc-param", "kmin_bytes=1")), "emulator sim", "kmin_bytes", "target_us");
        assertRefused(run(concat(small, "--cc", "swift", "--cc-param", "beta=x")), "emulator sim", "beta=x", "not a number");
        assertRefused(run(concat(small, "--cc", "dcqcn", "--cc-param", "g=2")), "emulator sim", "--cc-param g=2: ", "g 2.0");
        assertRefused(run(concat(small, "--cc", "dcqcn", "--cc-param", "pmax=2")), "emulator sim",
                "--cc-param pmax=2: ECN pmax 2.0 is not in (0, 1]");
        assertRefused(run(concat(small, "--cc", "swift", "--cc-param", "ack_every=0")), "emulator sim",
                "--cc-param ack_every=0: a whole number of packets from 1 to 64 is needed");
        assertRefused(run(concat(small, "--cc", "rl-cc", "--cc-param", "ack_delay_us=0")), "emulator sim", "ack_delay_us=0");
        assertRefused(run(concat(small, "--cc-param", "g=0.1")), "emulator sim", "--cc-param needs");
        assertRefused(run(concat(small, "--many-to-one", "16")), "emulator sim", "'--many-to-one'", "16 hosts");
    }

    /** {@code --cc rl-cc}: the shipped policy alone, or a policy file; a file that does not load is one line, FILE:LINE: reason, exit 2. */
    @Test
    void rlCcRunsTheShippedPolicyOrAFileAndRefusesABadFile(@TempDir Path dir) throws Exception {
        Run m = run("sim", "--topology", "fat-tree:k=32,levels=1", "--many-to-one", "2", "--load", "1", "--duration", "100us",
                "--buffer", "32", "--output-buffer", "64", "--cc", "rl-cc", "--json");
        assertEquals(0, m.code(), m.err());
        assertEquals("default", m.json().path("ccParams").path("policy").asText());
        assertTrue(m.json().path("goodput").asDouble() > 0, m.out());
        Path file = dir.resolve("bad.policy");
        Files.writeString(file, "fabriclab-rlcc-policy 1\ntree\n0 split rtt_ratio 1 1 7\n1 leaf 0\n");
        String[] small = {"sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "10us", "--cc", "rl-cc"};
        assertRefused(run(concat(small, "--cc-param", "policy=" + file)), "emulator sim", "--cc-param policy: " + file + ":3: node 0 refers "
                + "to node 7, missing from tree 0");
        assertRefused(run(concat(small, "--cc-param", "policy=" + dir.resolve("missing.policy"))), "emulator sim", "missing.policy: no such file");
        assertRefused(run(concat(small, "--cc-param", "beta=0.5")), "emulator sim", "rl-cc has no such parameter", "policy, min_rate_gbps");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--cc-param", "policy=x"), "emulator sim",
                "--cc-param needs --cc dcqcn, swift, rl-cc or ack-only");
    }

    /**
     * {@code --long-short}: every short flow completes and is reported with its normalised time; the
     * long flow gives way and comes back, RL-CC's within the run, DCQCN's (cut by the shorts' queue,
     * its rate recovered by timer steps) later or not at all (with 16 KiB shorts the burst is over
     * before a CNP cuts it, and it recovers as fast as without congestion control); a size the source queue cannot hold, or with --many-to-one, is refused.
     */
    @Test
    void longShortReportsTheLongFlowsRecoveryAndTheShortFlowsCompletion() {
        String[] common = {"sim", "--topology", "fat-tree:k=32,levels=1", "--long-short", "16", "--short-bytes", "65536", "--load", "1",
                "--duration", "2ms", "--buffer", "32", "--output-buffer", "1024", "--json"};
        JsonNode rl = run(concat(common, "--cc", "rl-cc")).json();
        assertEquals(17, rl.path("flows").asInt());
        assertEquals(256, rl.path("shortPackets").asInt(), "64 KiB of 256-byte payloads");
        assertEquals(16, rl.path("shortsCompleted").asInt(), rl.toString());
        assertEquals(16, rl.path("shortCompletionNs").size());
        assertTrue(rl.path("longGbpsDuring").asDouble() < rl.path("longGbpsBefore").asDouble() / 2, rl.toString());
        assertTrue(rl.path("shortNormalizedMean").asDouble() >= 1 && rl.path("shortNormalizedP99").asDouble()
                >= rl.path("shortNormalizedMean").asDouble(), "no flow faster than alone at the line rate; p99 at least the mean");
        assertTrue(rl.path("longRecoveryNs").isNumber(), "RL-CC's long flow recovers within the run: " + rl);
        assertEquals(100, rl.path("longGbpsSeries").size());
        JsonNode dcqcn = run(concat(common, "--cc", "dcqcn")).json();
        assertTrue(dcqcn.path("longRecoveryNs").isNull() || dcqcn.path("longRecoveryNs").asLong() > rl.path("longRecoveryNs").asLong(),
                "DCQCN recovers later: " + dcqcn.path("longRecoveryNs") + " against " + rl.path("longRecoveryNs"));
        String[] small = {"sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "10us"};
        assertRefused(run(concat(small, "--long-short", "2", "--short-bytes", "1000000")), "emulator sim", "'--short-bytes'", "1..1024");
        assertRefused(run(concat(small, "--long-short", "2", "--many-to-one", "2")), "emulator sim", "--long-short and --many-to-one");
        assertRefused(run(concat(small, "--long-short", "15")), "emulator sim", "'--long-short'", "1..14");
    }

    /** {@code --all-to-all N}: N(N-1) flows reported by source then destination, goodput over N links; refused beside another traffic option. */
    @Test
    void allToAllReportsEveryPairsFlow() {
        Run r = run("sim", "--topology", "fat-tree:k=32,levels=1", "--all-to-all", "3", "--load", "0.6", "--duration", "100us",
                "--buffer", "32", "--output-buffer", "64", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(6, j.path("flows").asInt());
        assertEquals(6, j.path("flowGbps").size());
        for (JsonNode g : j.path("flowGbps")) {
            assertEquals(30, g.asDouble(), 1.5, "each host offers 0.6 of its link, split over two flows: " + j.path("flowGbps"));
        }
        assertEquals(0.6, j.path("goodput").asDouble(), 0.03, "over three links");
        String[] small = {"sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "10us"};
        assertRefused(run(concat(small, "--all-to-all", "3", "--many-to-one", "2")), "emulator sim", "give one");
        assertRefused(run(concat(small, "--all-to-all", "17")), "emulator sim", "'--all-to-all'", "2..16");
    }

    /**
     * {@code --message}: the all-to-all's flows in messages, whose completion times the report adds
     * with each flow's latency, the ECN marks and CNPs; the options' misuses are refused in one line.
     */
    @Test
    void allToAllInMessagesReportsTheirCompletion() {
        Run r = run("sim", "--topology", "fat-tree:k=32,levels=1", "--all-to-all", "4", "--load", "0.8", "--duration", "200us",
                "--buffer", "32", "--output-buffer", "1024", "--message", "4KiB", "--cc", "dcqcn", "--json");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(4096, j.path("messageBytes").asLong());
        assertEquals(16, j.path("messagePackets").asInt(), "4 KiB of 256-byte payloads");
        assertTrue(j.path("messageGapNs").isNull(), "Poisson");
        assertTrue(j.path("messagesCompleted").asLong() > 0, r.out());
        assertTrue(j.path("messageNormalizedMean").asDouble() >= 1 && j.path("messageP99Ns").asDouble() >= j.path("messageMeanNs").asDouble());
        assertEquals(12, j.path("flowMessageMeanNs").size());
        assertEquals(12, j.path("flowNetworkLatencyNs").size());
        assertTrue(j.path("ecnMarked").isNumber() && j.path("cnpsReceived").isNumber(), r.out());
        JsonNode gap = run("sim", "--topology", "fat-tree:k=32,levels=1", "--all-to-all", "3", "--duration", "100us", "--message", "1024",
                "--message-gap", "10us", "--json").json();
        assertEquals(10_000, gap.path("messageGapNs").asLong());
        String[] small = {"sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "10us"};
        assertRefused(run(concat(small, "--message", "4096")), "emulator sim", "--message", "--all-to-all or --many-to-one");
        assertRefused(run(concat(small, "--long-short", "2", "--message", "4096")), "emulator sim", "instead of --long-short");
        assertRefused(run(concat(small, "--all-to-all", "4", "--message-gap", "10us")), "emulator sim", "give --message BYTES too");
        assertRefused(run(concat(small, "--all-to-all", "4", "--message", "lots")), "emulator sim", "'--message'", "'lots'");
        assertRefused(run(concat(small, "--all-to-all", "4", "--message", "1MiB")), "emulator sim", "'--message'", "4096 packets",
                "(341: --source-queue 1024 over a host's 3 flows)");
        assertRefused(run(concat(small, "--all-to-all", "4", "--message", "4096", "--message-gap", "0us")), "emulator sim",
                "'--message-gap'", "above 0");
        assertRefused(run(concat(small, "--all-to-all", "4", "--message", "4096", "--message-gap", "5us", "--load", "0.5")),
                "emulator sim", "--message-gap", "--load");
        assertRefused(run(concat(small, "--many-to-one", "2", "--message", "4096", "--payload", "0")), "emulator sim", "no payload");
    }

    /** Runs {@code args}, which succeed, and asserts that without {@code option} the report has none of its {@code fields}. */
    private static Run ranWithout(String[] args, String option, String... fields) {
        Run r = run(args);
        assertEquals(0, r.code(), r.err());
        for (String field : fields) {
            assertFalse(r.json().has(field), field + " only with " + option + ": " + r.out());
        }
        return r;
    }

    static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * {@code --until-steady}: the report adds the warm-up used and when the run was found steady (and
     * nothing without the option); a bad tolerance or window is one line and exit 2.
     */
    @Test
    void untilSteadyReportsTheWarmUpUsedAndRefusesWhatItCannotRun() {
        String[] base = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-min", "--vls", "5", "--load", "0.3",
                "--duration", "120us", "--warmup", "100us", "--json"};
        Run plain = ranWithout(base, "--until-steady", "steady", "warmupNs", "steadyAtNs");
        Run steady = run(concat(base, "--until-steady"));
        assertEquals(0, steady.code(), steady.err());
        JsonNode j = steady.json();
        assertTrue(j.path("steady").asBoolean(), steady.out());
        long at = j.path("steadyAtNs").asLong();
        assertTrue(at > 0 && at < 100_000 && at % 2_000 == 0, "at a 2 us window's end before the cap: " + at);
        assertEquals(at, j.path("warmupNs").asLong());
        assertEquals(at + 20_000, j.path("simulatedNs").asLong());
        Run capped = run(concat(base, "--until-steady", "0.0001"));
        assertFalse(capped.json().path("steady").asBoolean(), "nothing is that flat: " + capped.out());
        assertTrue(capped.json().get("steadyAtNs").isNull(), capped.out());
        assertEquals(100_000, capped.json().path("warmupNs").asLong());
        for (String field : new String[] {"throughput", "latencyMeanNs", "packetsDelivered", "events", "simulatedNs"}) {
            assertEquals(plain.json().get(field), capped.json().get(field), field + ": not steady by the cap, measured as without");
        }
        String[][] bad = {
            {"--until-steady=0", "'--until-steady': 0.0 is not a tolerance in (0, 1)"},
            {"--until-steady=1.5", "'--until-steady': 1.5 is not a tolerance in (0, 1)"},
            {"--until-steady=x", "--until-steady"},
            {"--steady-window=1us", "--steady-window is the width of --until-steady's windows: give --until-steady too"},
            {"--steady-drift=0.01", "--steady-drift is a tolerance of --until-steady's test: give --until-steady too"},
        };
        for (String[] b : bad) {
            assertRefused(run(concat(base, b[0])), "emulator sim", b[1]);
        }
        assertRefused(run(concat(base, "--until-steady", "--steady-window", "0us")), "emulator sim", "'--steady-window': '0us' is not a width");
        assertRefused(run(concat(base, "--until-steady", "--steady-drift", "-0.1")), "emulator sim",
                "'--steady-drift': -0.1 is not a tolerance in [0, 1)");
        assertRefused(run(concat(base, "--until-steady", "--steady-window", "6us")), "emulator sim",
                "the steady-state test needs 20 windows of 6000 ns within the warm-up's cap (100000 ns)", "over the run's last half");
        assertRefused(run(concat(base, "--until-steady", "--steady-drift", "0", "--steady-window", "20us")), "emulator sim",
                "the steady-state test needs 10 windows of 20000 ns within the warm-up's cap (100000 ns)");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--many-to-one", "2", "--until-steady"), "emulator sim",
                "flows are measured per phase");
    }

    /**
     * {@code --until-precise}: the report adds whether the run ended precise, the intervals' half-widths
     * and the batches (nothing without the option); a run ended precise is the fixed window ending
     * there; bad precisions, flows and a window too short for the batches are one line and exit 2.
     */
    @Test
    void untilPreciseReportsItsIntervalsAndRefusesWhatItCannotRun() {
        String[] base = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-min", "--vls", "5", "--load", "0.3",
                "--duration", "200us", "--warmup", "20us", "--json"};
        ranWithout(base, "--until-precise", "precise", "latencyMeanCi95Ns", "throughputCi95", "batches", "batchNs");
        Run precise = run(concat(base, "--until-precise"));
        assertEquals(0, precise.code(), precise.err());
        JsonNode j = precise.json();
        assertTrue(j.path("precise").asBoolean(), precise.out());
        long end = j.path("simulatedNs").asLong();
        assertTrue(end < 200_000, "ended before the cap: " + end);
        assertEquals(end - 20_000, j.path("batches").asLong() * j.path("batchNs").asLong(), precise.out());
        assertTrue(j.path("latencyMeanCi95Ns").asDouble() <= 0.01 * j.path("latencyMeanNs").asDouble(), precise.out());
        assertTrue(j.path("throughputCi95").asDouble() <= 0.01 * j.path("throughput").asDouble(), precise.out());
        Run fixed = run("sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-min", "--vls", "5", "--load", "0.3",
                "--duration", (end / 1000) + "us", "--warmup", "20us", "--json");
        for (String field : new String[] {"throughput", "latencyMeanNs", "latencyP99Ns", "meanHops", "packetsDelivered", "events",
                "simulatedNs"}) {
            assertEquals(fixed.json().get(field), j.get(field), field + ": the fixed window ending where the precise one did");
        }
        String[][] bad = {
            {"--until-precise=0", "'--until-precise': 0.0 is not a precision in (0, 1)"},
            {"--until-precise=1", "'--until-precise': 1.0 is not a precision in (0, 1)"},
            {"--until-precise=x", "--until-precise"},
        };
        for (String[] b : bad) {
            assertRefused(run(concat(base, b[0])), "emulator sim", b[1]);
        }
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--many-to-one", "2", "--until-precise"), "emulator sim",
                "--until-precise ends one measured window, and flows", "are measured per phase");
        assertRefused(run("sim", "--topology", "fat-tree:k=4,levels=2", "--duration", "100ns", "--warmup", "90ns", "--until-precise"),
                "emulator sim", "--until-precise needs 20 batches within the measured window (10 ns");
    }

    /**
     * A window shorter than packets take to cross the fabric (40 ns, batches of 1 ns) delivers old
     * packets in every batch, so the throughput's interval can be narrow, but no packet the report
     * measures: with no mean latency it is not precise and runs to its cap, the run without the option.
     */
    @Test
    void untilPreciseIsNeverPreciseWithoutAMeasuredPacket() {
        String[] base = {"sim", "--topology", "fat-tree:k=4", "--load", "0.5", "--duration", "10us", "--warmup", "9960ns", "--json"};
        Run r = run(concat(base, "--until-precise", "0.9"));
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals(0, j.path("packetsDelivered").asLong(), r.out());
        assertFalse(j.path("precise").asBoolean(), "no measured packet, no precise mean: " + r.out());
        assertEquals(10_000, j.path("simulatedNs").asLong(), "ran to its cap: " + r.out());
        assertEquals(run(base).json().get("throughput"), j.get("throughput"), "the run without the option");
    }
}
