package org.fabriclab.emulator;

import static org.fabriclab.emulator.SimCommandTest.assertRefused;
import static org.fabriclab.emulator.SimCommandTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
    }
}
