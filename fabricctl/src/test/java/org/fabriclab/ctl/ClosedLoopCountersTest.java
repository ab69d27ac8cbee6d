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
 * {@code fabricctl counters} of a daemon whose emulated hosts run a closed-loop job ({@code
 * fabric-manager --emulate --job ...pattern=ping-pong}): the job's rank 0 reports its iterations
 * and their mean time, in the JSON and in the text job table's two columns; its other rank "-".
 */
class ClosedLoopCountersTest {
    @Test
    void countersShowAClosedLoopJobsIterationsOnItsRankZero(@TempDir Path dir) throws Exception {
        try (EmulatedDaemon daemon = EmulatedDaemon.start("--emulate", "fat-tree:k=4,levels=2", "--link-gbps", "1", "--perf-interval",
                "200ms", "--job", "name=pp,hosts=2,pattern=ping-pong,message=4KiB", "--admin-port", "0", "--metrics-port", "0",
                "--state-dir", dir.toString())) {
            List<JsonNode> pp = new ArrayList<>();
            Waits.until("the ping-pong's iterations polled", () -> {
                FabricCtlTest.Run r = FabricCtlTest.run("counters", "--server", daemon.server(), "--json");
                pp.clear();
                r.json().path("hosts").forEach(h -> {
                    if (h.path("job").asText().equals("pp")) {
                        pp.add(h);
                    }
                });
                // both ranks polled (a poll reaches the hosts one by one: the first may list rank 0 alone)
                return pp.size() == 2 && pp.stream().anyMatch(h -> h.path("jobIterations").asLong() >= 10);
            });
            assertEquals(2, pp.size(), pp.toString());
            assertEquals(1, pp.stream().filter(h -> h.has("jobIterations")).count(), "rank 0 only: " + pp);
            JsonNode rank0 = pp.stream().filter(h -> h.has("jobIterations")).findFirst().orElseThrow();
            assertTrue(rank0.path("jobIterationMeanNs").asDouble() > rank0.path("jobMessageMeanNs").asDouble(),
                    "a round trip takes longer than the answer's trip: " + rank0);
            FabricCtlTest.Run text = FabricCtlTest.run("counters", "--server", daemon.server());
            assertEquals(0, text.code(), text.err());
            assertTrue(text.out().contains("iterations") && text.out().contains("iteration mean ns"), text.out());
            List<String> rows = text.out().lines().filter(l -> l.matches("\\S+\\s+pp\\s.*")).toList();
            assertEquals(2, rows.size(), text.out());
            assertEquals(1, rows.stream().filter(l -> l.matches(".*\\s\\d+\\s+\\d+\\.\\d$")).count(), "rank 0's iterations and mean: " + rows);
            assertEquals(1, rows.stream().filter(l -> l.matches(".*\\s-\\s+-$")).count(), "the other rank's: " + rows);
        }
    }
}
