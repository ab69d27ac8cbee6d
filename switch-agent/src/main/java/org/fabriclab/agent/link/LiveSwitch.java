package org.fabriclab.agent.link;

import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.EcnMarking;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.mgmt.ManagedNode;

/** A switch's {@link SwitchCore} driven live: see {@link LiveNode}. Confined to its event loop. */
public final class LiveSwitch extends LiveNode implements SwitchCore.Output {
    private final SwitchCore core;

    public LiveSwitch(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, double[] rateGbps, String endpoint) {
        this(loop, mgmt, vls, bufferPackets, 0, rateGbps, endpoint);
    }

    /** A switch with {@code outputBufferPackets} of output buffer per port and lane (0: input-queued), credits in {@link #FABRIC_BLOCKS}. */
    public LiveSwitch(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, int outputBufferPackets, double[] rateGbps,
                      String endpoint) {
        this(loop, mgmt, vls, bufferPackets, outputBufferPackets, FABRIC_BLOCKS, rateGbps, endpoint);
    }

    /** As above, with credits counted in {@code blocks} (buffers in slots of the largest frame the fabric carries). */
    public LiveSwitch(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, int outputBufferPackets, CreditBlocks blocks,
                      double[] rateGbps, String endpoint) {
        super(loop, mgmt, vls, bufferPackets, blocks, rateGbps, endpoint,
                mgmt.identity().ports() * vls * (bufferPackets + outputBufferPackets) + 1,
                (long) mgmt.identity().ports() * vls * ((long) blocks.mostPackets(bufferPackets) + blocks.mostPackets(outputBufferPackets)) + 1);
        core = new SwitchCore(ports, vls, bufferPackets, outputBufferPackets, blocks, mgmt.tables(), mgmt.counters(), pool, this);
        mgmt.dataVls(vls);
        // new tables: packets waiting for an output are routed again by them, on the event loop
        mgmt.tables().onChange(() -> execute(() -> {
            long now = now();
            core.tablesChanged(now);
            drain(now);
        }));
        mgmt.gauges(new ManagedNode.Gauges() {
            @Override
            public int queuedPackets(int port) {
                return core.queuedPackets(port);
            }

            @Override
            public int waitingHeads(int port) {
                return core.waitingHeads(port);
            }

            @Override
            public CompletableFuture<SwitchCore.Learning> learning() {
                CompletableFuture<SwitchCore.Learning> f = new CompletableFuture<>();
                execute(() -> f.complete(core.learning()));
                return f;
            }
        });
    }

    /**
     * Marks ECN-capable packets by {@code marking} (null: none, the default), drawing from a
     * generator seeded with {@code seed}: {@link SwitchCore#ecn}. Set before traffic flows; safe
     * from any thread.
     */
    public void ecn(EcnMarking marking, long seed) {
        mgmt.congestionControl(marking == null ? null : "ecn");
        execute(() -> core.ecn(marking, seed));
    }

    /** The core's buffers, credits and links, read on the event loop (troubleshooting). */
    public CompletableFuture<String> describe() {
        CompletableFuture<String> f = new CompletableFuture<>();
        execute(() -> f.complete(core.describe()));
        return f;
    }

    /** Adaptive-routing choices the core has made (read from any thread; may lag a little). */
    public long adaptiveDecisions() {
        return core.adaptiveDecisions();
    }

    @Override
    public void transmit(int port, int vl, int h, long now) {
        send(port, vl, h, now);
    }

    @Override
    public void returnCredit(int port, int vl, int blocks, long now) {
        owe(port, vl, blocks);
    }

    @Override
    public void discarded(int h, int inPort, long now) {
        drop(h);
    }

    @Override
    public void qFeedback(int port, int row, float value, long now) {
        feedback(port, row, value);
    }

    @Override
    protected void qFeedbackCore(int port, int row, float value, long now) {
        core.qFeedback(port, row, value, now);
    }

    /** The Q-table the core is learning (a copy), or null: see {@link SwitchCore#qTable()}. */
    public float[] qTable() {
        return core.qTable();
    }

    @Override
    protected void packetArrivedCore(int port, int h, long now) {
        core.packetArrived(port, h, now);
    }

    @Override
    protected void creditReturnedCore(int port, int vl, int count, long now) {
        core.creditReturned(port, vl, count, now);
    }

    @Override
    protected String refusedCreditCore(int port, int vl, int count) {
        return core.refusedCredit(port, vl, count);
    }

    @Override
    protected void linkFreeCore(int port, long now) {
        core.linkFree(port, now);
    }

    @Override
    protected void portActiveCore(int port, int peerBufferPackets, long now) {
        core.portActive(port, peerBufferPackets, now);
    }

    @Override
    protected void portDownCore(int port, long now) {
        core.portDown(port, now);
    }
}
