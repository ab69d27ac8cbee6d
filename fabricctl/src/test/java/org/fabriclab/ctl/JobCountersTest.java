package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricctl counters} shows the jobs' metrics added with the closed loops
 * ({@code fabric_job_refused_messages_total}, {@code fabric_job_mode_packets_total}): per host and
 * summed per job, in the JSON and in a text table of their own; {@code --job NAME} keeps one job's
 * hosts, and a name no host runs is refused in one line that names the jobs there are (exit 2).
 * An application-aware ping-pong's packets split between the two modes it weighs; a fixed-mode job's
 * all ask for its mode.
 */
class JobCountersTest {
    @Test
    void countersShowEachJobsRefusedMessagesAndPacketsByMode(@TempDir Path dir) throws Exception {
        try (EmulatedDaemon daemon = EmulatedDaemon.start("--emulate", "fat-tree:k=4,levels=2", "--link-gbps", "1", "--perf-interval",
                "200ms", "--job", "name=pp,hosts=2,pattern=ping-pong,message=4KiB,mode=app-aware",
                "--job", "name=a2a,hosts=4,pattern=all-to-all,load=0.001,mode=ADAPTIVE_3", "--admin-port", "0", "--metrics-port", "0",
                "--state-dir", dir.toString())) {
            List<JsonNode> jobs = new ArrayList<>();
            JsonNode[] last = new JsonNode[1];
            Waits.until("both jobs' packets polled", () -> {
                FabricCtlTest.Run r = FabricCtlTest.run("counters", "--server", daemon.server(), "--json");
                last[0] = r.json();
                jobs.clear();
                r.json().path("jobs").forEach(jobs::add);
                return jobs.size() == 2 && jobs.stream().allMatch(j -> j.path("packets").asLong() >= 100);
            });
            JsonNode pp = jobs.stream().filter(j -> j.path("job").asText().equals("pp")).findFirst().orElseThrow();
            JsonNode a2a = jobs.stream().filter(j -> j.path("job").asText().equals("a2a")).findFirst().orElseThrow();
            assertEquals(2, pp.path("hosts").asInt(), pp.toString());
            assertEquals(4, a2a.path("hosts").asInt(), a2a.toString());
            assertEquals(0, pp.path("refusedMessages").asLong(), "the command line gave the loop the queue it needs: " + pp);
            long byMode = 0;
            for (var e : iterable(pp.path("modePackets"))) {
                assertTrue(e.equals("ADAPTIVE_0") || e.equals("ADAPTIVE_3"), "app-aware weighs the default against the high bias: " + pp);
                byMode += pp.path("modePackets").path(e).asLong();
            }
            assertTrue(Math.abs(pp.path("packets").asLong() - byMode) <= 16, "every packet counted under a mode (polled together): " + pp);
            assertEquals(List.of("ADAPTIVE_3"), iterable(a2a.path("modePackets")), "a fixed mode's packets all ask for it: " + a2a);

            // the job's sums are its hosts' (one poll's)
            long hostsRefused = 0;
            long hostsA3 = 0;
            for (JsonNode h : last[0].path("hosts")) {
                if (h.path("job").asText().equals("a2a")) {
                    hostsRefused += h.path("jobRefusedMessages").asLong();
                    hostsA3 += h.path("jobModePackets").path("ADAPTIVE_3").asLong();
                }
            }
            JsonNode a2aLast = List.copyOf(iterableNodes(last[0].path("jobs"))).stream()
                    .filter(j -> j.path("job").asText().equals("a2a")).findFirst().orElseThrow();
            assertEquals(a2aLast.path("refusedMessages").asLong(), hostsRefused);
            assertEquals(a2aLast.path("modePackets").path("ADAPTIVE_3").asLong(), hostsA3);

            FabricCtlTest.Run only = FabricCtlTest.run("counters", "--job", "pp", "--server", daemon.server(), "--json");
            assertEquals(0, only.code(), only.err());
            assertEquals(2, only.json().path("hosts").size(), "pp's two hosts: " + only.out());
            assertEquals(1, only.json().path("jobs").size(), only.out());
            FabricCtlTest.Run text = FabricCtlTest.run("counters", "--job", "a2a", "--server", daemon.server());
            assertEquals(0, text.code(), text.err());
            assertTrue(text.out().contains("packets by mode"), text.out());
            assertTrue(text.out().lines().anyMatch(l -> l.matches("a2a\\s+4\\s+\\d+\\s+0\\s+ADAPTIVE_3 \\d+")), text.out());

            FabricCtlTest.Run bad = FabricCtlTest.run("counters", "--job", "nosuch", "--server", daemon.server());
            assertEquals(2, bad.code(), bad.out());
            assertEquals("fabricctl: --job \"nosuch\": no host runs a job of that name (jobs: pp, a2a)", bad.err().strip());
        }
    }

    private static List<String> iterable(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<JsonNode> iterableNodes(JsonNode array) {
        List<JsonNode> nodes = new ArrayList<>();
        array.forEach(nodes::add);
        return nodes;
    }
}
