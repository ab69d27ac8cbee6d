package org.fabriclab.emulator.sim;

import java.util.List;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.HostPolicy;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The simulated hosts' traffic sources, on top of the core's {@link HostPolicy} (the live hosts'
 * too): Poisson arrivals at the offered load into each host's {@link SourceQueue} (or with flows,
 * each flow's packets evenly paced), destinations by the pattern's {@link TrafficPlan}, SL and
 * source route from each host's {@link HostRoutes} (the DLID-indexed table the daemon writes into
 * a live adapter), the routing mode the configuration asks for. Each host draws its gaps and destinations from one generator split off the
 * run's seed, in the order the event loop asks. Allocates nothing per packet; confined to the
 * simulation's thread.
 */
final class TrafficSources {
    private final PacketPool pool;
    private final HostCore[] hostCore;
    private final HostPolicy[] policy;
    /** Each host's source queue, looked up directly: {@link #pump} runs after every host event, most often to find it empty. */
    private final SourceQueue[] source;
    private final int[] lidOfEndpoint;
    private final List<Simulation.Flow> flows;
    private final Arrivals flowArrivals;
    private final int frameBytes;
    private final Measurements measure;

    /**
     * @param meanGapNs the mean gap between a host's packets at the offered load
     * @throws IllegalArgumentException if the pattern cannot run on the fabric (group-shift without groups)
     */
    TrafficSources(Simulation.Config c, PacketPool pool, HostCore[] hostCore, int[] lidOfEndpoint, int frameBytes, double meanGapNs,
                   Measurements measure) {
        this.pool = pool;
        this.hostCore = hostCore;
        this.lidOfEndpoint = lidOfEndpoint;
        this.flows = c.flows();
        this.frameBytes = frameBytes;
        this.measure = measure;
        Fabric f = c.fabric();
        int hosts = f.endpointCount();
        int[] groups = new int[hosts];
        for (int e = 0; e < hosts; e++) {
            groups[e] = f.group(f.endpointNode(e));
        }
        // with flows the pattern picks nothing: uniform needs nothing of the fabric
        TrafficPlan plan = TrafficPlan.of(flows.isEmpty() ? c.pattern() : TrafficPattern.UNIFORM, hosts, groups, c.seed());
        HostRoutes[] routes = HostRoutes.of(c.tables());
        SplittableRandom seeds = new SplittableRandom(c.seed());
        policy = new HostPolicy[hosts];
        source = new SourceQueue[hosts];
        for (int e = 0; e < hosts; e++) {
            policy[e] = HostPolicy.of(plan, e, seeds.split(), Arrivals.Mode.POISSON, meanGapNs, routes[e], c.vls(), c.sourceQueuePackets());
            policy[e].routingMode(c.routingMode());
            source[e] = policy[e].source();
        }
        flowArrivals = new Arrivals(Arrivals.Mode.PACED, meanGapNs, null);
    }

    /** The time to host {@code e}'s next packet (pattern traffic). */
    long gap(int e) {
        return policy[e].nextGapNs();
    }

    /** The time to a flow's next packet. */
    long flowGap() {
        return flowArrivals.nextGapNs();
    }

    /** Host {@code e}'s source creates a packet now, of {@code flow} (or -1: the pattern picks its destination). */
    void inject(int e, int flow, long now) {
        measure.created(now);
        source[e].add(now, flow);
        pump(e, now);
    }

    /** Moves packets from the host's source queue into its NIC while the send queue has room. */
    void pump(int e, long now) {
        SourceQueue q = source[e];
        if (q.isIdle()) {
            return;
        }
        HostCore core = hostCore[e];
        if (q.held() != PacketPool.NONE) {
            if (!core.offer(q.held(), now)) {
                return;
            }
            q.unhold();
        }
        HostPolicy p = policy[e];
        while (!q.isEmpty() && core.canOffer(0)) {
            int h = pool.allocate();
            if (h == PacketPool.NONE) {
                throw new IllegalStateException("packet pool exhausted: a packet was neither queued nor credited");
            }
            int flow = q.headFlow();
            int d = flow < 0 ? p.nextDestination() : flows.get(flow).dst();
            int dlid = lidOfEndpoint[d];
            p.stamp(pool, h, lidOfEndpoint[e], dlid, p.routes().route(dlid));
            pool.flow(h, flow < 0 ? (e << 16) ^ d : flow);
            pool.bytes(h, frameBytes);
            pool.timestamp(h, q.headCreated());
            q.remove();
            if (!core.offer(h, now)) {
                q.hold(h); // its lane's send queue is full (lane 0 had room): it goes first when there is room
                return;
            }
        }
    }

    /** Sets control packet {@code h}'s (from host {@code e}) SL, VL and source route as for data to its DLID. */
    void path(int e, int h) {
        HostPolicy p = policy[e];
        p.path(pool, h, p.routes().route(pool.dlid(h)));
    }

    /** Packets the hosts' full source queues refused. */
    long refused() {
        long n = 0;
        for (SourceQueue q : source) {
            n += q.refused();
        }
        return n;
    }
}
