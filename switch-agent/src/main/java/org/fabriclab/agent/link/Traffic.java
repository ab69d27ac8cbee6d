package org.fabriclab.agent.link;

import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.PathLanes;

/**
 * What a live host sends: the core's {@link TrafficPlan} over the fabric's hosts (their LIDs in
 * the plan's order), which of them it is, the SL of each path, the arrival process, rate and size,
 * and the routing mode its packets ask for.
 *
 * @param hostLids     per host number of the plan, its LID
 * @param self         this host's number in the plan, or -1 for a plan {@link TrafficPlan#among} destinations
 * @param plan         the pattern and what it needs of the fabric
 * @param lanes        the SL of each path (the engine's lanes; source routes come from the node's own table, which the daemon writes)
 * @param arrivals     how the source spaces its packets (Poisson by default; paced evenly)
 * @param rateGbps     offered rate: packets are created at this mean rate into the source queue; 0 keeps the
 *                     source queue full (as fast as credits allow)
 * @param payloadBytes payload of each packet (the frame adds {@link Frames#DATA_HEADER} bytes)
 * @param packets      packets to create in all; 0 for no limit
 * @param seed         seed of the host's random draws (destinations, gaps)
 * @param routingMode  the routing mode every packet asks the fabric for ({@link RoutingMode#DEFAULT}: none)
 * @param job          the job this host is a rank of (a {@link TrafficPlan#ofJob job plan} over its ranks, messages of
 *                     the plan's packets created together), named in its NIC's counters; null: no job
 * @param appAware     a job's host chooses each message's routing mode from its NIC counters ({@code AppAwareRouting})
 * @param loop         a closed-loop job's loop, shared by its ranks (the plan's hosts, {@code self} this one's rank): no
 *                     arrivals, {@code rateGbps} unused, a message sent when the loop says; null: open loop
 * @param sourcePackets the host's source queue, packets ({@link SourceQueue#PACKETS} unless told; {@code --source-queue})
 */
public record Traffic(int[] hostLids, int self, TrafficPlan plan, HostRoutes lanes, Arrivals.Mode arrivals, double rateGbps,
                      int payloadBytes, long packets, long seed, RoutingMode routingMode, String job, boolean appAware, LiveLoop loop,
                      int sourcePackets) {
    /** With the default source queue ({@link SourceQueue#PACKETS}). */
    public Traffic(int[] hostLids, int self, TrafficPlan plan, HostRoutes lanes, Arrivals.Mode arrivals, double rateGbps,
                   int payloadBytes, long packets, long seed, RoutingMode routingMode, String job, boolean appAware, LiveLoop loop) {
        this(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, packets, seed, routingMode, job, appAware, loop,
                SourceQueue.PACKETS);
    }

    /** An open-loop job's traffic (or with {@code job} null, no job's). */
    public Traffic(int[] hostLids, int self, TrafficPlan plan, HostRoutes lanes, Arrivals.Mode arrivals, double rateGbps,
                   int payloadBytes, long packets, long seed, RoutingMode routingMode, String job, boolean appAware) {
        this(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, packets, seed, routingMode, job, appAware, null);
    }

    /** No job. */
    public Traffic(int[] hostLids, int self, TrafficPlan plan, HostRoutes lanes, Arrivals.Mode arrivals, double rateGbps,
                   int payloadBytes, long packets, long seed, RoutingMode routingMode) {
        this(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, packets, seed, routingMode, null, false);
    }

    /** Packets that ask for no routing mode. */
    public Traffic(int[] hostLids, int self, TrafficPlan plan, HostRoutes lanes, Arrivals.Mode arrivals, double rateGbps,
                   int payloadBytes, long packets, long seed) {
        this(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, packets, seed, RoutingMode.DEFAULT);
    }

    public Traffic {
        hostLids = hostLids.clone();
        if (routingMode == null) {
            throw new IllegalArgumentException("no routing mode (RoutingMode.DEFAULT asks for none)");
        }
        if (hostLids.length != plan.hosts()) {
            throw new IllegalArgumentException("the plan numbers " + plan.hosts() + " hosts but " + hostLids.length + " LIDs were given");
        }
        if (payloadBytes < 0 || payloadBytes > Frames.MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload " + payloadBytes + " bytes is outside 0.." + Frames.MAX_PAYLOAD);
        }
        if (rateGbps < 0 || packets < 0) {
            throw new IllegalArgumentException("rate and packet count must not be negative");
        }
        if (appAware && job == null) {
            throw new IllegalArgumentException("application-aware routing chooses per message: a job's traffic only");
        }
        if (sourcePackets < 1 || sourcePackets > SourceQueue.MAX_PACKETS) {
            throw new IllegalArgumentException("a source queue holds 1.." + SourceQueue.MAX_PACKETS + " packets, not " + sourcePackets);
        }
        if (loop != null && plan.messagePackets() > sourcePackets) {
            throw new IllegalArgumentException("a closed loop's message of " + plan.messagePackets() + " packets never fits a source queue "
                    + "of " + sourcePackets + ": the loop would wait for it for ever");
        }
        if (loop != null && (job == null || loop.ranks() != hostLids.length || loop.messagePackets() != plan.messagePackets())) {
            throw new IllegalArgumentException("a closed loop is a job's, over the plan's " + hostLids.length + " ranks and its messages of "
                    + plan.messagePackets() + " packets");
        }
    }

    /**
     * Traffic to a fixed list of {@code destinations} (LIDs, the sender not among them), uniform
     * or all-to-all over them, Poisson at {@code rateGbps}, every path on SL 0.
     */
    public Traffic(int[] destinations, TrafficPattern pattern, double rateGbps, int payloadBytes, long packets, long seed) {
        this(destinations, -1, TrafficPlan.among(pattern, destinations.length), new HostRoutes(new long[0], PathLanes.SINGLE, 0),
                Arrivals.Mode.POISSON, rateGbps, payloadBytes, packets, seed);
    }

    /** The same traffic with arrivals spaced by {@code mode}. */
    public Traffic withArrivals(Arrivals.Mode mode) {
        return new Traffic(hostLids, self, plan, lanes, mode, rateGbps, payloadBytes, packets, seed, routingMode, job, appAware, loop,
                sourcePackets);
    }

    /** The same traffic with every packet asking for routing mode {@code mode}. */
    public Traffic withRoutingMode(RoutingMode mode) {
        return new Traffic(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, packets, seed, mode, job, appAware, loop,
                sourcePackets);
    }

    /** The same traffic from a source queue of {@code packets} packets. */
    public Traffic withSourceQueue(int packets) {
        return new Traffic(hostLids, self, plan, lanes, arrivals, rateGbps, payloadBytes, this.packets, seed, routingMode, job, appAware,
                loop, packets);
    }
}
