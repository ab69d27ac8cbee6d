package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import org.fabriclab.emulator.cli.JobOptions;
import org.junit.jupiter.api.Test;

/** {@code emulator sim --job}: the per-job report, and every malformed or unplaceable job refused in one line before anything runs. */
class JobCommandTest {
    private static final String[] FABRIC = {"sim", "--topology", "dragonfly:p=2,a=4,h=2", "--engine", "df-ugalg", "--vls", "5",
            "--duration", "30us"};

    private static SimCommandTest.Run sim(String... more) {
        String[] args = new String[FABRIC.length + more.length];
        System.arraycopy(FABRIC, 0, args, 0, FABRIC.length);
        System.arraycopy(more, 0, args, FABRIC.length, more.length);
        return run(args);
    }

    @Test
    void theReportHasEveryJobAndTheyAddUp() {
        SimCommandTest.Run r = sim("--json", "--job", "name=a,hosts=24,placement=interleaved,pattern=halo3d,load=0.3,mode=ADAPTIVE_3,message=4KiB",
                "--job", "name=b,hosts=16,placement=random,pattern=allreduce-ring,load=0.2");
        assertEquals(0, r.code(), r.err());
        JsonNode j = r.json();
        assertEquals("jobs", j.path("pattern").asText());
        JsonNode jobs = j.path("jobs");
        assertEquals(2, jobs.size());
        JsonNode a = jobs.get(0);
        assertEquals("a", a.path("name").asText());
        assertEquals(24, a.path("hosts").asInt());
        assertEquals("interleaved", a.path("placement").asText());
        assertEquals("halo3d", a.path("pattern").asText());
        assertEquals("ADAPTIVE_3", a.path("routingMode").asText());
        assertEquals(16, a.path("messagePackets").asInt(), "4 KiB in 256-byte payloads");
        assertEquals("DEFAULT", jobs.get(1).path("routingMode").asText(), "--routing-mode's default");
        for (String f : new String[] {"offeredLoad", "throughput", "latencyMeanNs", "latencyP99Ns", "nonMinimalShare", "messageMeanNs",
                "messageP99Ns"}) {
            assertTrue(a.path(f).isNumber(), f + " in " + a);
        }
        assertEquals(j.path("packetsDelivered").asLong(), a.path("packetsDelivered").asLong() + jobs.get(1).path("packetsDelivered").asLong());
        assertEquals(j.path("throughput").asDouble() * 72, a.path("throughput").asDouble() * 24 + jobs.get(1).path("throughput").asDouble() * 16,
                1e-9, "the run's throughput is over every host, idle ones too");
    }

    @Test
    void anApplicationAwareJobReportsTheShareItSentAdaptively() {
        SimCommandTest.Run r = sim("--json", "--job", "name=a,hosts=32,pattern=all-to-all,load=0.4,mode=app-aware,message=8KiB",
                "--job", "name=b,hosts=16,mode=ADAPTIVE_3");
        assertEquals(0, r.code(), r.err());
        JsonNode a = r.json().path("jobs").get(0);
        assertEquals("app-aware", a.path("routingMode").asText());
        double share = a.path("adaptiveShare").asDouble(-1);
        assertTrue(share >= 0 && share <= 1, a.toString());
        assertTrue(r.json().path("jobs").get(1).path("adaptiveShare").isMissingNode(), "a fixed mode has none");
    }

    @Test
    void theTextReportHasAJobTable() {
        SimCommandTest.Run r = sim("--job", "name=a,hosts=8", "--job", "name=b,hosts=8,pattern=all-to-all");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("job ") && l.contains("msgP99Ns")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("b ") && l.contains("all-to-all")), r.out());
    }

    @Test
    void badJobsAreRefusedWithTheReason() {
        assertRefused(sim("--job", "name=a,hosts=64", "--job", "name=b,hosts=300"), "emulator sim",
                "job b asks for 300 hosts; 8 are left of the fabric's 72");
        assertRefused(sim("--job", "name=a,hosts=8,colour=red"), "emulator sim", "unknown key \"colour\"", "name, hosts");
        assertRefused(sim("--job", "name=a"), "emulator sim", "job a: hosts=N is required");
        assertRefused(sim("--job", "name=a,hosts=1"), "emulator sim", "hosts=\"1\" is not a whole number of 2 or more");
        assertRefused(sim("--job", "name=a,hosts=8,pattern=tornado"), "emulator sim", "unknown pattern \"tornado\"", "halo3d");
        assertRefused(sim("--job", "name=a,hosts=8,placement=packed"), "emulator sim", "unknown placement 'packed'", "interleaved");
        assertRefused(sim("--job", "name=a,hosts=8,load=1.5"), "emulator sim", "load=\"1.5\" is not in (0, 1]");
        assertRefused(sim("--job", "name=a,hosts=8,mode=FAST"), "emulator sim", "unknown routing mode 'FAST'", "or app-aware");
        assertRefused(sim("--job", "name=a,hosts=8,message=lots"), "emulator sim", "message=\"lots\" is not a size");
        assertRefused(sim("--job", "name=a,hosts=8,message=1MiB"), "emulator sim", "more than a host's source queue holds (1024)");
        assertRefused(sim("--job", "name=a,hosts=8", "--job", "name=a,hosts=8"), "emulator sim", "two jobs are named a");
        assertRefused(sim("--job", "name=a,hosts=8,hosts=9"), "emulator sim", "key hosts given twice");
        assertRefused(sim("--job", "name=a,hosts=8", "--pattern", "uniform"), "emulator sim", "--pattern", "pattern= key");
        assertRefused(sim("--job", "name=a,hosts=8", "--many-to-one", "4"), "emulator sim", "--job and --many-to-one");
        String[] many = new String[2 * (JobOptions.MAX_JOBS + 1)];
        for (int j = 0; j < JobOptions.MAX_JOBS + 1; j++) {
            many[2 * j] = "--job";
            many[2 * j + 1] = "name=j" + j + ",hosts=2";
        }
        assertRefused(sim(many), "emulator sim", "17 jobs; give at most 16");
    }

    /**
     * {@code emulator sweep --job}: a job without load= runs at each point's load, one with load=
     * keeps its own (the victim fixed, the aggressor's noise swept); each point reports every job,
     * and a point's report is {@code emulator sim}'s at that load with the same jobs.
     */
    @Test
    void aSweepScalesTheJobsWithoutALoadOfTheirOwn() {
        String victim = "name=victim,hosts=16,placement=interleaved,pattern=all-to-all,load=0.3,mode=ADAPTIVE_0,message=1KiB";
        String aggressor = "name=aggressor,hosts=32,placement=contiguous,pattern=random,mode=ADAPTIVE_0";
        SimCommandTest.Run r = run("sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--duration",
                "30us", "--loads", "0.1,0.6", "--threads", "1", "--json", "--job", victim, "--job", aggressor);
        assertEquals(0, r.code(), r.err());
        assertEquals("jobs", r.json().path("pattern").asText());
        JsonNode points = r.json().path("engines").get(0).path("points");
        assertEquals(2, points.size());
        for (int i = 0; i < 2; i++) {
            JsonNode jobs = points.get(i).path("jobs");
            double load = points.get(i).path("load").asDouble();
            assertEquals(0.3, jobs.get(0).path("load").asDouble(), "the victim keeps its load=");
            assertEquals(load, jobs.get(1).path("load").asDouble(), "the aggressor runs at the point's load");
            assertTrue(jobs.get(1).path("messagesCompleted").asLong() > 0, jobs.toString());
        }
        SimCommandTest.Run alone = sim("--json", "--load", "0.6", "--job", victim, "--job", aggressor);
        assertEquals(alone.json().path("jobs"), points.get(1).path("jobs"), "the point at 0.6 is emulator sim's at --load 0.6");
        assertTrue(points.get(1).path("jobs").get(1).path("offeredLoad").asDouble() > points.get(0).path("jobs").get(1)
                .path("offeredLoad").asDouble(), "the aggressor offers more at the higher point");

        SimCommandTest.Run text = run("sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--duration",
                "30us", "--loads", "0.2", "--threads", "1", "--job", victim, "--job", aggressor);
        assertEquals(0, text.code(), text.err());
        assertTrue(text.out().lines().anyMatch(l -> l.contains("job victim: accepted") && l.contains("message mean")), text.out());
    }

    @Test
    void sweepAndUpRefuseBadJobsInOneLine() {
        assertRefused(run("sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--loads", "0.1",
                "--job", "name=a,hosts=100"), "emulator sweep", "job a asks for 100 hosts; 72 are left of the fabric's 72");
        assertRefused(run("sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--loads", "0.1",
                "--job", "name=a,hosts=8", "--pattern", "uniform"), "emulator sweep", "--pattern", "pattern= key");
        assertRefused(run("sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--loads", "0.1",
                "--job", "name=a,hosts=8,mode=SLOW"), "emulator sweep", "unknown routing mode 'SLOW'");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job", "name=a,hosts=8,load=2"),
                "emulator up", "load=\"2\" is not in (0, 1]");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job", "name=a,hosts=80"),
                "emulator up", "job a asks for 80 hosts; 72 are left");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job", "name=a,hosts=8",
                "--traffic", "uniform"), "emulator up", "--traffic is every host's traffic", "pattern= key");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job", "hosts=8,message=4MiB"),
                "emulator up", "job job1's messages of 4194304 bytes are 2048 packets", "(1024)");
    }

    @Test
    void pingPongReportsItsIterationsAndIsRefusedWhereItCannotRun() {
        SimCommandTest.Run r = sim("--json", "--job", "name=pp,hosts=2,pattern=ping-pong,message=1KiB");
        assertEquals(0, r.code(), r.err());
        JsonNode pp = r.json().path("jobs").get(0);
        assertEquals("ping-pong", pp.path("pattern").asText());
        assertTrue(pp.path("iterations").asLong() > 0, pp.toString());
        assertTrue(pp.path("iterationMeanNs").asDouble() > pp.path("messageMeanNs").asDouble(), pp.toString());
        assertTrue(pp.path("iterationP99Ns").isNumber(), pp.toString());
        assertTrue(sim("--job", "name=pp,hosts=2,pattern=ping-pong").out().contains("pp: ping-pong, "), "the text report's line");
        JsonNode b = sim("--json", "--job", "name=b,hosts=8,pattern=barrier").json().path("jobs").get(0);
        assertTrue(b.path("iterations").asLong() > 0 && b.path("iterationMeanNs").asDouble() > 0, b.toString());
        assertRefused(sim("--job", "name=b,hosts=8,pattern=barrier,load=0.2"), "emulator sim", "barrier is closed-loop");
        assertRefused(sim("--job", "name=a,hosts=8,pattern=alltoall,load=0.2"), "emulator sim", "alltoall is closed-loop");
        JsonNode a = sim("--json", "--job", "name=a,hosts=8,pattern=alltoall,message=1KiB").json().path("jobs").get(0);
        assertTrue(a.path("iterations").asLong() > 0 && a.path("iterationMeanNs").asDouble() > 0, a.toString());
        assertRefused(sim("--job", "name=pp,hosts=4,pattern=ping-pong"), "emulator sim", "ping-pong runs between two hosts: give hosts=2");
        assertRefused(sim("--job", "name=pp,hosts=2,pattern=ping-pong,load=0.5"), "emulator sim", "closed-loop", "no load=");
        // a broadcast's rank 0 queues a message to each child at once: 5 of 256 packets for 32 ranks, more than 1,024
        assertRefused(sim("--job", "name=bc,hosts=32,pattern=broadcast,message=64KiB"), "emulator sim",
                "job bc (broadcast of 32 ranks) may queue 5 messages of 256 packets at one rank at once, 1280 packets", "(1024)");
        assertEquals(0, sim("--job", "name=bc,hosts=32,pattern=broadcast,message=64KiB", "--source-queue", "1280").code());
        // the live plane runs them too (LiveJobMetricsTest), and refuses what cannot run as the simulator does
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job", "name=pp,hosts=3,pattern=ping-pong"),
                "emulator up", "ping-pong runs between two hosts: give hosts=2, not 3");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--job",
                "name=b,hosts=8,pattern=barrier,load=0.3"), "emulator up", "barrier is closed-loop", "no load=");
        assertRefused(run("up", "--topology", "dragonfly:p=2,a=4,h=2", "--management-port", "0", "--seed", "x", "--job",
                "name=b,hosts=8,placement=random,pattern=barrier"), "emulator up", "--seed", "'x'");
    }

    /**
     * {@code pattern=halo3d-loop} and {@code pattern=sweep3d}: closed-loop, their iterations in the
     * report, no load (the JSON's {@code load} is null for every closed loop: it sends on receipt);
     * {@code pattern=halo3d} stays the open-loop pattern; a rank that may queue more than the source
     * queue holds is refused in one line.
     */
    @Test
    void halo3dLoopAndSweep3dAreClosedLoopsWithNoLoad() {
        SimCommandTest.Run r = sim("--json", "--job", "name=h,hosts=16,placement=interleaved,pattern=halo3d-loop,message=1KiB",
                "--job", "name=s,hosts=16,pattern=sweep3d,message=1KiB", "--job", "name=o,hosts=8,pattern=halo3d,load=0.2");
        assertEquals(0, r.code(), r.err());
        JsonNode jobs = r.json().path("jobs");
        for (int j = 0; j < 2; j++) {
            JsonNode loop = jobs.get(j);
            assertTrue(loop.path("iterations").asLong() > 0 && loop.path("iterationMeanNs").asDouble() > 0, loop.toString());
            assertTrue(loop.has("load") && loop.path("load").isNull(), "a closed loop offers no load: " + loop);
        }
        assertEquals("halo3d-loop", jobs.get(0).path("pattern").asText());
        assertEquals("sweep3d", jobs.get(1).path("pattern").asText());
        JsonNode open = jobs.get(2);
        assertTrue(open.path("iterations").isMissingNode(), "halo3d is the open-loop pattern still: " + open);
        assertEquals(0.2, open.path("load").asDouble());
        assertTrue(sim("--job", "name=s,hosts=16,pattern=sweep3d").out().contains("s: sweep3d, "), "the text report's line");
        assertRefused(sim("--job", "name=h,hosts=16,pattern=halo3d-loop,load=0.2"), "emulator sim", "halo3d-loop is closed-loop");
        assertRefused(sim("--job", "name=s,hosts=16,pattern=sweep3d,load=0.2"), "emulator sim", "sweep3d is closed-loop");
        assertRefused(sim("--job", "name=s,hosts=8,pattern=sweep-3d"), "emulator sim", "unknown pattern", "halo3d-loop, sweep3d");
        // halo3d of 16 (2 x 2 x 4): four phases of two messages at once; sweep3d of 16: two sweeps of two blocks, x and y
        assertRefused(sim("--job", "name=h,hosts=16,pattern=halo3d-loop,message=64KiB"), "emulator sim",
                "job h (halo3d-loop of 16 ranks) may queue 8 messages of 256 packets at one rank at once, 2048 packets", "(1024)");
        assertRefused(sim("--job", "name=s,hosts=16,pattern=sweep3d,message=64KiB"), "emulator sim",
                "job s (sweep3d of 16 ranks) may queue 8 messages of 256 packets at one rank at once, 2048 packets", "(1024)");
        assertEquals(0, sim("--job", "name=s,hosts=16,pattern=sweep3d,message=64KiB", "--source-queue", "2048").code());
        // the run's --load is the open-loop jobs' default: a closed loop alone does not use it
        SimCommandTest.Run b = sim("--json", "--load", "0.9", "--job", "name=b,hosts=8,pattern=barrier");
        assertTrue(b.json().path("jobs").get(0).path("load").isNull(), b.out());
    }

    /** {@code emulator sweep --job} with a closed-loop job: each point's text row gives its iterations and their mean, as the JSON does. */
    @Test
    void aSweepShowsAClosedLoopJobsIterations() {
        String[] sweep = {"sweep", "--topology", "dragonfly:p=2,a=4,h=2", "--engines", "df-ugalg", "--vls", "5", "--duration", "30us",
            "--loads", "0.2,0.6", "--threads", "1", "--job", "name=b,hosts=8,placement=interleaved,pattern=barrier",
            "--job", "name=noise,hosts=32,pattern=random"};
        SimCommandTest.Run text = run(sweep);
        assertEquals(0, text.code(), text.err());
        assertEquals(2, text.out().lines().filter(l -> l.contains("job b: accepted") && l.matches(".*, \\d+ iterations, iteration mean "
                + "[0-9.]+ ns, p99 \\d+ ns")).count(), text.out());
        assertTrue(text.out().lines().noneMatch(l -> l.contains("job noise:") && l.contains("iterations")), "an open-loop job has none");
        String[] json = java.util.Arrays.copyOf(sweep, sweep.length + 1);
        json[sweep.length] = "--json";
        JsonNode b = run(json).json().path("engines").get(0).path("points").get(0).path("jobs").get(0);
        assertTrue(b.path("iterations").asLong() > 0 && b.path("iterationMeanNs").asDouble() > 0, b.toString());
    }
}
