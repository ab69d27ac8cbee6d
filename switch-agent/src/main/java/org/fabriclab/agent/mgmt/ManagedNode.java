package org.fabriclab.agent.mgmt;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.fabriclab.agent.core.FlowSink;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.proto.v1.Event;
import org.fabriclab.proto.v1.MKeyViolation;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.PortStateChange;
import org.fabriclab.proto.v1.SmState;

/**
 * The management state of one node (switch or channel adapter), what its subnet management agent
 * answers about and changes: identity, port states and LIDs, neighbours learned by the link-level
 * hello, the manager it answers to and the M_Key guarding it, counters, and for a switch its
 * {@link TableStore}. Port state changes (IBA trap 128) and M_Key violations (trap 256) are
 * published to subscribers as traps.
 *
 * <p>Thread-safety: management calls arrive on gRPC threads and link events on data-plane
 * threads, so mutable state is guarded by this object's monitor; the tables have their own
 * lock-free read path. Listeners are called outside the monitor.
 */
public final class ManagedNode {
    /** Identity of a node. */
    public record Identity(NodeType type, long guid, String description, int ports) {
    }

    /** IBA trap numbers: a port changed state; a write came with a wrong M_Key. */
    public static final int TRAP_PORT_STATE_CHANGE = 128;
    public static final int TRAP_BAD_M_KEY = 256;
    /**
     * M_Key violations a node traps per second at most (a token bucket of as many, refilled at
     * that rate): a caller guessing keys cannot flood the manager with traps or the log with lines;
     * violations beyond are refused unread and folded into the next trap.
     */
    public static final int M_KEY_TRAPS_PER_SECOND = 10;

    private final Identity identity;
    private final TableStore tables;
    private final PortCounterArray counters;
    private final PortState[] states;
    private final int[] lids;
    private final double[] rateGbps;
    private final long[] neighbourGuid;
    private final int[] neighbourPort;
    private final String[] neighbourEndpoint;
    private final List<Consumer<Event>> listeners = new CopyOnWriteArrayList<>();
    private long smGuid;
    private int smPriority;
    private int smActCount;
    private SmState smState = SmState.SM_STATE_NOT_ACTIVE;
    private long mKey;
    private long mKeyViolations;
    /** Violations since the last trap 256 (refused unread while the bucket was empty). */
    private long violationsUntrapped;
    private double trapTokens = M_KEY_TRAPS_PER_SECOND;
    private long trapTokensAt;
    /** The wall clock the M_Key trap rate is kept by (tests pass their own). */
    private volatile LongSupplier wallClock = System::nanoTime;
    private long eventSequence;
    private volatile FlowSource flowSource;
    private volatile String congestionControl;
    /** {@link #job(String)}. */
    private volatile String job;
    private volatile Emulation emulation;
    private volatile Gauges gauges;
    private volatile LongSupplier modelClock = System::nanoTime;
    /** The thread that writes {@link #counters}: the data plane's event loop once one drives the node; until then the caller's. */
    private volatile Executor countersOwner = Runnable::run;

    /** A switch's queue gauges, read from its core (racily, from any thread: they may lag by a packet). */
    public interface Gauges {
        int queuedPackets(int port);

        int waitingHeads(int port);

        /**
         * The Dragonfly routing the data plane routes by and a copy of the Q-table it learnt under
         * it, read on the thread that owns them (so a routing just written comes with its seed,
         * never with what the one before learnt); null where no core learns (the tables' seeds stand).
         */
        default CompletableFuture<SwitchCore.Learning> learning() {
            return CompletableFuture.completedFuture(null);
        }
    }
    /** A channel adapter's source routes by destination LID ({@code SourceRoute} encoding; 0: none), replaced whole. */
    private volatile long[] sourceRoutes = new long[0];

    /**
     * An emulated node's time dilation and fidelity: the dilation its model clock runs at, and how
     * far behind model time its event loop and its links ran over a recent interval.
     */
    public interface Emulation {
        /** The state over (at least) the last {@code windowMillis} of wall time, read on the thread that owns it. */
        CompletableFuture<EmulationState> state(long windowMillis);

        /** Sets the dilation of the node's model clock; throws IllegalArgumentException if out of range. */
        void dilation(double d);

        /**
         * Adopts a clock line whole: model = {@code modelNs} + (monotonic wall - {@code wallNs}) /
         * {@code d}; throws IllegalArgumentException if {@code d} is out of range.
         */
        void anchor(long modelNs, long wallNs, double d);
    }

    /**
     * Lags are model nanoseconds, worst over the interval: {@code loopLagNs} how late the node's
     * event loop ran a task due at a set time, {@code linkLagNs} how late a frame left (or
     * arrived over) the node's link {@code linkLagPort} after its model time; {@code boundNs} the
     * lag within which the node counts as faithful.
     */
    public record EmulationState(double dilation, long modelTimeNs, long loopLagNs, long linkLagNs, int linkLagPort,
                                 long boundNs, long anchorModelNs, long anchorWallNs) {
    }

    /** A channel adapter's receive counters per source, read on the thread that owns them. */
    public interface FlowSource {
        CompletableFuture<List<FlowSink.Flow>> flows();
    }

    public ManagedNode(Identity identity) {
        this.identity = identity;
        trapTokensAt = wallClock.getAsLong();
        int n = identity.ports();
        tables = identity.type() == NodeType.NODE_TYPE_SWITCH ? new TableStore(n) : null;
        counters = new PortCounterArray(n);
        states = new PortState[n + 1];
        Arrays.fill(states, PortState.PORT_STATE_DOWN);
        lids = new int[n + 1];
        rateGbps = new double[n + 1];
        neighbourGuid = new long[n + 1];
        neighbourPort = new int[n + 1];
        neighbourEndpoint = new String[n + 1];
        Arrays.fill(neighbourEndpoint, "");
    }

    public Identity identity() {
        return identity;
    }

    private volatile int dataVls;

    /** The data lanes the node's data plane has (its forwarding core sets it), 0 until known. */
    public int dataVls() {
        return dataVls;
    }

    public void dataVls(int vls) {
        dataVls = vls;
    }

    public boolean isSwitch() {
        return tables != null;
    }

    /** The switch's tables; null for a channel adapter. */
    public TableStore tables() {
        return tables;
    }

    public PortCounterArray counters() {
        return counters;
    }

    /**
     * Sets the executor of the one thread that writes this node's counters (the data plane's event
     * loop): a reset then runs there, between two of its updates, never in the middle of one.
     */
    public void countersOwner(Executor owner) {
        countersOwner = owner;
    }

    /**
     * Clears one port's counters, or every port's ({@code port} 0), on the thread that owns them
     * ({@link #countersOwner}): a reset from a gRPC thread would race the data plane's
     * read-increment-write and could lose the reset or an update. Completes once cleared.
     */
    public CompletableFuture<Void> resetCounters(int port) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            countersOwner.execute(() -> {
                counters.reset(port);
                done.complete(null);
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    /**
     * Replaces a channel adapter's source routes: per destination LID the encoded route its packets
     * carry (0: routed by the switches' tables), as Angara's adapter writes the route into each
     * packet's header from its routing table. An empty table turns source routing off.
     */
    public void sourceRoutes(long[] byLid) {
        sourceRoutes = byLid.clone();
    }

    /** The whole source-route table by destination LID (a copy). */
    public long[] sourceRouteTable() {
        return sourceRoutes.clone();
    }

    /** The source route to {@code dlid}, or 0. */
    public long sourceRoute(int dlid) {
        long[] r = sourceRoutes;
        return dlid < r.length ? r[dlid] : 0;
    }

    /**
     * Where the node's model time comes from (its data plane sets it; by default the wall clock).
     * Counters are stamped with it when read, so that rates computed from two reads are in model
     * time whatever time dilation the live plane runs under.
     */
    public void modelClock(LongSupplier nanos) {
        modelClock = nanos;
    }

    /** The node's model time in nanoseconds now (only differences between two reads mean anything). */
    public long modelTimeNanos() {
        return modelClock.getAsLong();
    }

    /** Where a switch's queue gauges come from (its data plane sets it). */
    public void gauges(Gauges g) {
        gauges = g;
    }

    /** The queue gauges, or null (no data plane). */
    public Gauges gauges() {
        return gauges;
    }

    /**
     * What congestion control the node's data plane takes part in: a channel adapter's algorithm
     * ({@code dcqcn}, {@code swift}, ...), {@code ecn} for a switch that marks; null: none.
     */
    public void congestionControl(String name) {
        congestionControl = name;
    }

    /** {@link #congestionControl(String)}'s name, or null. */
    public String congestionControl() {
        return congestionControl;
    }

    /** The job a channel adapter's host runs ({@code --job}'s name), whose counters its NIC keeps; null: none. */
    public void job(String name) {
        job = name;
    }

    /** {@link #job(String)}'s name, or null. */
    public String job() {
        return job;
    }

    /** Where a channel adapter's per-flow counters come from (its data plane sets it). */
    public void flowSource(FlowSource s) {
        flowSource = s;
    }

    /** The per-flow counters' source, or null (a switch, or a node without a data plane). */
    public FlowSource flowSource() {
        return flowSource;
    }

    /** Where the node's dilation and lags come from (its live data plane sets it). */
    public void emulation(Emulation e) {
        emulation = e;
    }

    /** The node's dilation and lags, or null (no live data plane). */
    public Emulation emulation() {
        return emulation;
    }

    /**
     * Bumped (under the node's lock) by every change of a port's state or LID, so a data plane can
     * cache what it reads of its port and re-read it only on change (a volatile read per packet
     * instead of a lock and a {@link Port} record).
     */
    private volatile int portVersion;

    /** The count of port state and LID changes so far (see {@link #port} for what they changed to). */
    public int portVersion() {
        return portVersion;
    }

    /** A port snapshot for PortInfo. */
    public record Port(int number, PortState state, int lid, double rateGbps, long neighbourGuid, int neighbourPort,
                       String neighbourEndpoint) {
    }

    public synchronized Port port(int p) {
        int lid = isSwitch() ? lids[0] : lids[p];
        return new Port(p, states[p], lid, rateGbps[p], neighbourGuid[p], neighbourPort[p], neighbourEndpoint[p]);
    }

    /** The link-level hello saw a neighbour on port {@code p}: the port goes to INIT and a trap is sent. */
    public void linkUp(int p, double gbps, long guid, int port, String endpoint) {
        Event e;
        synchronized (this) {
            rateGbps[p] = gbps;
            neighbourGuid[p] = guid;
            neighbourPort[p] = port;
            neighbourEndpoint[p] = endpoint;
            if (states[p] != PortState.PORT_STATE_DOWN) {
                return;
            }
            states[p] = PortState.PORT_STATE_INIT;
            portVersion++;
            e = event(p, PortState.PORT_STATE_INIT);
        }
        publish(e);
    }

    /** The link on port {@code p} failed or was taken down: the port goes DOWN and a trap is sent. */
    public void linkDown(int p) {
        Event e;
        synchronized (this) {
            if (states[p] == PortState.PORT_STATE_DOWN) {
                return;
            }
            states[p] = PortState.PORT_STATE_DOWN;
            neighbourGuid[p] = 0;
            neighbourPort[p] = 0;
            neighbourEndpoint[p] = "";
            portVersion++;
            e = event(p, PortState.PORT_STATE_DOWN);
        }
        publish(e);
    }

    /**
     * Sets a port's LID and state as the manager asks.
     *
     * @throws IllegalArgumentException naming the port and the refused change
     */
    public synchronized Port setPort(int p, int lid, PortState state) {
        if (lid < 0 || lid > 0xBFFF) {
            throw new IllegalArgumentException("LID " + lid + " is not a unicast LID (1..0xbfff)");
        }
        if (state != PortState.PORT_STATE_UNSPECIFIED && state != states[p]) {
            if (states[p] == PortState.PORT_STATE_DOWN) {
                throw new IllegalArgumentException("port " + p + " has no link and stays DOWN; it cannot become " + state);
            }
            if (state == PortState.PORT_STATE_DOWN || state == PortState.UNRECOGNIZED) {
                throw new IllegalArgumentException("port " + p + " cannot be set to " + state + "; only the link takes a port down");
            }
            if (state.getNumber() < states[p].getNumber() && state != PortState.PORT_STATE_INIT) {
                throw new IllegalArgumentException("port " + p + " cannot go from " + states[p] + " to " + state);
            }
            states[p] = state;
        }
        if (lid != 0) {
            lids[isSwitch() ? 0 : p] = lid;
        }
        portVersion++;
        return port(p);
    }

    /** The manager state (IBA SMInfo). */
    public record SmInfoState(long smGuid, int priority, SmState state, boolean mKeySet, int actCount) {
    }

    public synchronized SmInfoState smInfo() {
        return new SmInfoState(smGuid, smPriority, smState, mKey != 0, smActCount);
    }

    /** Writes refused for a wrong or missing M_Key since the node started. */
    public synchronized long mKeyViolations() {
        return mKeyViolations;
    }

    /** Sets the wall clock the M_Key trap rate is kept by (nanoseconds; tests drive their own). */
    public void wallClock(LongSupplier nanos) {
        synchronized (this) {
            wallClock = nanos;
            trapTokensAt = nanos.getAsLong();
        }
    }

    /**
     * What became of one M_Key violation: {@code total} violations so far; {@code trapped} if this
     * one was reported by a trap 256 (with {@code coalesced} violations: it and those folded in
     * since the last trap), false if the node had already trapped its share this second.
     */
    public record Violation(long total, long coalesced, boolean trapped) {
    }

    /**
     * Counts a write refused for a wrong or missing M_Key ({@code method} called from
     * {@code peer}) and reports it by trap 256, unless the node has trapped
     * {@link #M_KEY_TRAPS_PER_SECOND} this second: it is then only counted, and the next trap
     * carries it. The key that was tried is not kept anywhere.
     */
    public Violation mKeyViolation(String method, String peer) {
        Event e;
        Violation v;
        synchronized (this) {
            mKeyViolations++;
            violationsUntrapped++;
            long now = wallClock.getAsLong();
            trapTokens = Math.min(M_KEY_TRAPS_PER_SECOND, trapTokens + (now - trapTokensAt) * 1e-9 * M_KEY_TRAPS_PER_SECOND);
            trapTokensAt = now;
            if (trapTokens < 1) {
                return new Violation(mKeyViolations, violationsUntrapped, false);
            }
            trapTokens--;
            v = new Violation(mKeyViolations, violationsUntrapped, true);
            violationsUntrapped = 0;
            e = Event.newBuilder().setNodeGuid(identity.guid()).setSequence(++eventSequence).setTrapNumber(TRAP_BAD_M_KEY)
                    .setMKeyViolation(MKeyViolation.newBuilder().setMethod(method).setPeer(peer).setCoalesced(v.coalesced())
                            .setTotal(v.total())).build();
        }
        publish(e);
        return v;
    }

    public synchronized SmInfoState setSmInfo(long guid, int priority, SmState state, long newMKey, int actCount) {
        smGuid = guid;
        smPriority = priority;
        smActCount = actCount;
        if (state != SmState.SM_STATE_UNSPECIFIED) {
            smState = state;
        }
        if (newMKey != 0) {
            mKey = newMKey;
        }
        return smInfo();
    }

    /** True if {@code key} may change this node: no M_Key is set, or it is the M_Key. */
    public synchronized boolean mKeyAllows(long key) {
        return mKey == 0 || key == mKey;
    }

    public void addListener(Consumer<Event> l) {
        listeners.add(l);
    }

    public void removeListener(Consumer<Event> l) {
        listeners.remove(l);
    }

    /** How many trap subscribers are attached. */
    public int subscriberCount() {
        return listeners.size();
    }

    private Event event(int p, PortState s) {
        return Event.newBuilder().setNodeGuid(identity.guid()).setSequence(++eventSequence).setTrapNumber(TRAP_PORT_STATE_CHANGE)
                .setPortStateChange(PortStateChange.newBuilder().setPortNumber(p).setState(s)).build();
    }

    private void publish(Event e) {
        for (Consumer<Event> l : listeners) {
            l.accept(e);
        }
    }
}
