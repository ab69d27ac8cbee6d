import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.GetFlowCountersRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.topology.Topologies;

/**
 * One counter poll of a live emulated fabric, the old way and the new: one serial GetPortCounters
 * per linked port and one GetFlowCounters per host (the perf manager before issue 15), against
 * PerfManager.poll (one GetNodeCounters per node, fanned out). Prints calls and the median of
 * REPS polls of each, with the fabric's uniform traffic running.
 * Usage: java -cp fabric-manager/target/fabric-manager-0.1.0-SNAPSHOT-all.jar bench/perf/PollCost.java [SPEC] [REPS]
 */
public class PollCost {
    public static void main(String[] args) throws Exception {
        String spec = args.length > 0 ? args[0] : "fat-tree:k=4,levels=3";
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        var topology = Topologies.generate(spec);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint(topology.name(topology.nodeCount() - 1)), "minhop", null,
                     new SimpleMeterRegistry());
             PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 60_000)) {
            FabricManager.Snapshot s = manager.sweep().get(300, TimeUnit.SECONDS);
            fabric.startTraffic(TrafficPattern.UNIFORM, 0.2, 2048, 0, s.outcome().tables());
            long[] before = new long[reps];
            long[] after = new long[reps];
            long calls = 0;
            for (int r = 0; r < reps; r++) {
                long t0 = System.nanoTime();
                calls = 0;
                for (DiscoveredNode n : s.discovered().nodes()) {
                    for (PortInfo p : n.ports()) {
                        if (p.getState() != PortState.PORT_STATE_DOWN && p.getNeighbourNodeGuid() != 0) {
                            manager.channels().blocking(n.endpoint())
                                    .getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(p.getPortNumber()).build());
                            calls++;
                        }
                    }
                    if (n.info().getType() != NodeType.NODE_TYPE_SWITCH) {
                        manager.channels().blocking(n.endpoint()).getFlowCounters(GetFlowCountersRequest.getDefaultInstance());
                        calls++;
                    }
                }
                before[r] = System.nanoTime() - t0;
                t0 = System.nanoTime();
                perf.poll();
                after[r] = System.nanoTime() - t0;
            }
            Arrays.sort(before);
            Arrays.sort(after);
            System.out.printf(Locale.ROOT, "%s (%d nodes): per port %d calls, median %.0f ms; per node %d calls, median %.0f ms (%d polls each)%n",
                    spec, s.discovered().nodes().size(), calls, before[reps / 2] / 1e6, s.discovered().nodes().size(), after[reps / 2] / 1e6, reps);
        }
    }
}
