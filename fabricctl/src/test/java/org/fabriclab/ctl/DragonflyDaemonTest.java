package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon end to end with a Dragonfly engine: {@code fabric-manager --emulate dragonfly:...
 * --engine q-adaptive} (its real command line, in this JVM) gives the emulated switches the five
 * lanes the engine needs without {@code --vls}, routes, pushes, activates and carries ADV+1
 * traffic on which every router learns; {@code fabricctl status} reports the engine. What the
 * test reads it reads as the manager does, over the switches' management endpoints.
 */
class DragonflyDaemonTest {
    @Test
    void theDaemonRunsQAdaptiveOnFiveLanesAndStatusSaysSo(@TempDir Path dir) throws Exception {
        try (EmulatedDaemon daemon = EmulatedDaemon.start("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--traffic",
                "adv+1", "--admin-port", "0", "--metrics-port", "0", "--state-dir", dir.toString(), "--sweep-interval", "0")) {
            List<DiscoveredNode> nodes = daemon.manager().snapshot().discovered().nodes();
            NodeChannels management = daemon.manager().channels();
            for (DiscoveredNode n : nodes) {
                if (n.info().getType() == NodeType.NODE_TYPE_SWITCH) {
                    assertEquals(5, management.blocking(n.endpoint()).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getDataVls(),
                            n.info().getDescription() + "'s data lanes: q-adaptive's five, without --vls");
                }
            }
            FabricCtlTest.Run status = FabricCtlTest.run("status", "--server", daemon.server(), "--json");
            assertEquals(0, status.code(), status.err());
            JsonNode st = status.json();
            assertEquals("UP", st.path("state").asText(), status.out());
            assertEquals("q-adaptive", st.path("engine").asText(), status.out());
            assertEquals(20, st.path("switches").asInt());
            assertEquals(20, st.path("hosts").asInt());

            // traffic flows (the hosts' receive counters) and the routers learn from it (their Q-table updates)
            Waits.until("the hosts received 1,000 packets of ADV+1 traffic", () -> nodes.stream()
                    .filter(n -> n.info().getType() == NodeType.NODE_TYPE_CA)
                    .mapToLong(n -> management.blocking(n.endpoint()).getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(1).build())
                            .getRcvPkts()).sum() >= 1000);
            Waits.until("every router learnt from its neighbours' feedback", () -> nodes.stream()
                    .filter(n -> n.info().getType() == NodeType.NODE_TYPE_SWITCH)
                    .allMatch(n -> management.blocking(n.endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance())
                            .getQUpdates() > 0));
        }
    }
}
