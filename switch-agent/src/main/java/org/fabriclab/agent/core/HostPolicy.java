package org.fabriclab.agent.core;

import java.util.SplittableRandom;
import org.fabriclab.routing.dragonfly.RoutingMode;

/**
 * What a host decides for each packet it sends, the same on both clocks: when its source creates
 * packets ({@link Arrivals}, into its {@link SourceQueue}), where each goes ({@link Destinations}),
 * its sequence number, its SL and lane, and the routing mode its application asks the fabric for
 * ({@link RoutingMode}, as Aries hosts set it per packet; {@link RoutingMode#DEFAULT} unless
 * {@link #routingMode(RoutingMode)} says otherwise). The driver (the live host, the simulator) keeps the
 * clock and the wire; this keeps the decisions.
 *
 * <p>Sequence numbers: one counter per host over all its destinations, so the packets of each pair
 * carry increasing numbers without a counter per pair; they wrap at 2^32, and a receiver compares
 * them by {@link #overtaken}, the one meaning of "out of order" of both drivers. Allocates nothing
 * per packet; confined to the thread driving the host.
 */
public final class HostPolicy {
    private final Destinations destinations;
    private final Arrivals arrivals;
    private final SourceQueue source;
    private final HostRoutes routes;
    private final int vls;
    private int nextSeq;
    private int routingMode;
    /** Chooses the routing mode per message from the NIC counters, or null: the mode stays as set. */
    private AppAwareRouting appAware;
    /** Closed-loop packets taken from the source queue so far ({@link #destination}). */
    private long loopPackets;

    /**
     * @param destinations the host's chooser ({@link TrafficPlan#destinations})
     * @param arrivals     its arrival process (null: the driver feeds the source queue itself)
     * @param routes       its routing state by DLID (SL; source routes where the driver has no table of its own)
     * @param vls          data lanes of the fabric: a path's SL travels on VL SL mod vls from the NIC
     */
    public HostPolicy(Destinations destinations, Arrivals arrivals, HostRoutes routes, int vls) {
        this(destinations, arrivals, routes, vls, SourceQueue.PACKETS);
    }

    /** With a source queue of {@code sourcePackets} packets. */
    public HostPolicy(Destinations destinations, Arrivals arrivals, HostRoutes routes, int vls, int sourcePackets) {
        this.source = new SourceQueue(sourcePackets);
        this.destinations = destinations;
        this.arrivals = arrivals;
        this.routes = routes;
        this.vls = vls;
    }

    /** One host's policy drawing destinations and gaps from one generator, as the simulator always has. */
    public static HostPolicy of(TrafficPlan plan, int self, SplittableRandom random, Arrivals.Mode mode, double meanGapNs,
                                HostRoutes routes, int vls) {
        return of(plan, self, random, mode, meanGapNs, routes, vls, SourceQueue.PACKETS);
    }

    /** As {@link #of(TrafficPlan, int, SplittableRandom, Arrivals.Mode, double, HostRoutes, int)} with a source queue of {@code sourcePackets}. */
    public static HostPolicy of(TrafficPlan plan, int self, SplittableRandom random, Arrivals.Mode mode, double meanGapNs,
                                HostRoutes routes, int vls, int sourcePackets) {
        return new HostPolicy(plan.destinations(self, random), new Arrivals(mode, meanGapNs, random), routes, vls, sourcePackets);
    }

    /** The host's source queue. */
    public SourceQueue source() {
        return source;
    }

    /** The time to the source's next packet. */
    public long nextGapNs() {
        return arrivals.nextGapNs();
    }

    /**
     * The plan's host number of the next packet's destination; with {@link #appAware}, a message's
     * first packet takes the routing mode it chooses, and the message's other packets keep it.
     */
    public int nextDestination() {
        int d = destinations.next();
        if (appAware != null && destinations.startedMessage()) {
            routingMode = appAware.select().code();
        }
        return d;
    }

    /**
     * The destination of the packet at the head of the source queue, whose flow there is {@code
     * flow}: a closed-loop message names its own ({@link ClosedLoop#destinationOf}), else the pattern
     * picks ({@link #nextDestination}). Either way, with {@link #appAware}, a message's first packet
     * takes the routing mode it chooses and the message's other packets keep it: a closed-loop
     * message's first packet is told apart by counting (its messages are queued whole, one after
     * the other, each of the plan's {@link Destinations#messagePackets} packets).
     */
    public int destination(int flow) {
        int d = ClosedLoop.destinationOf(flow);
        if (d < 0) {
            return nextDestination();
        }
        if (appAware != null && loopPackets++ % destinations.messagePackets() == 0) {
            routingMode = appAware.select().code();
        }
        return d;
    }

    /** Lets {@code chooser} choose the routing mode of each message from now on (null: no more). */
    public void appAware(AppAwareRouting chooser) {
        appAware = chooser;
    }

    /** The application-aware chooser, or null. */
    public AppAwareRouting appAware() {
        return appAware;
    }

    public HostRoutes routes() {
        return routes;
    }

    /** The routing mode this host's packets ask for from now on. */
    public void routingMode(RoutingMode mode) {
        routingMode = mode.code();
    }

    public RoutingMode routingMode() {
        return RoutingMode.ofCode(routingMode);
    }

    /** The number the next packet gets. */
    public int nextSequence() {
        return nextSeq;
    }

    /**
     * Numbers packets on from {@code seq}: a host whose traffic is replaced keeps its one counter
     * (its receivers have seen the earlier numbers).
     */
    public void continueSequence(int seq) {
        nextSeq = seq;
    }

    /**
     * Writes the decisions into packet {@code h}'s header: its addresses, the next sequence
     * number, SL and VL from the path's lane, no hops yet, the host's routing mode, and {@code route} (the host table's
     * source route to {@code dlid}: the caller's lookup, as the live host's table is its node's).
     */
    public void stamp(PacketPool pool, int h, int slid, int dlid, long route) {
        pool.dlid(h, dlid);
        pool.slid(h, slid);
        pool.seq(h, nextSeq++);
        path(pool, h, route);
    }

    /**
     * Writes the path decisions into packet {@code h} to {@code pool.dlid(h)}: SL and VL from the
     * path's lane, no hops yet, and {@code route}; a congestion-control packet gets these alone
     * (its other fields answer the data packet it acknowledges).
     */
    public void path(PacketPool pool, int h, long route) {
        int lane = routes.sl(pool.dlid(h));
        pool.sl(h, (byte) lane);
        pool.vl(h, (byte) (lane % vls));
        pool.hops(h, 0);
        pool.mode(h, routingMode);
        pool.route(h, route);
    }

    /**
     * True if a packet numbered {@code seq} was overtaken by a later one of its pair, given
     * {@code expected}, one more than the highest number received from its source (0: none yet).
     * Wrap-safe: numbers may run past 2^31.
     */
    public static boolean overtaken(int expected, int seq) {
        return expected != 0 && seq + 1 - expected < 0;
    }
}
