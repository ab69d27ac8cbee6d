package org.fabriclab.manager.sweep;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.DragonflyRouting;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.QSeeds;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.SwitchInstall;
import org.fabriclab.routing.fabric.Fabric;

/**
 * Phase 1 of a heavy sweep's push: every switch gets what {@link SwitchInstall} maps from the
 * engine's tables (with the SL-to-VL default wrapping at the data VLs the switch reports), in one
 * versioned, all-or-nothing write of only what differs from what it holds: the LFT blocks that
 * changed, the LFT top, the SL-to-VL maps, the whole AR state, the direction ports and the
 * Dragonfly routing when they changed. What this manager last wrote is remembered per switch, so a push compares without
 * reading back. A switch at a version this manager did not write (a restart, another manager, a
 * stranger's write) or at the contract's ceiling is rewritten whole from a fresh base (a
 * {@code replace} write: nothing it held is trusted, in one call instead of a read per block), and
 * so is one whose version moved between the read and the write (FAILED_PRECONDITION, once).
 *
 * <p>A Q-adaptive switch's seed is its own once installed: a push whose routing differs from the
 * switch's only in the seed (another seed policy, a restored snapshot's values) keeps the switch's
 * seed, and so what it learnt; before a whole rewrite the routing is read back for that. Only
 * {@link #restartLearning} (a reseed or a restore) writes a new seed into the same routing, on
 * every switch or none. A push whose routing differs in more than the seed (a link failed or came
 * back, so gateways and ports changed) carries what the switch learnt over into the new routing's
 * seed where the row's minimal way is the same ({@link #carryingOver}): only the rows whose
 * minimal path changed start again.
 *
 * <p>Thread-safety: {@link #push} runs on the sweep thread; the per-switch calls on the fan-out's,
 * each call with the fan-out's deadline.
 */
final class TablePush {
    /** What this manager last wrote to a switch: the version it moved it to and the tables. */
    private record Pushed(long version, SwitchInstall install) {
    }

    /** The management contract's ceiling of table versions, 2^53-1 (management.proto: MAX_TABLE_VERSION). */
    static final long MAX_VERSION = (1L << 53) - 1;

    private final FanOut fanOut;
    private final long mKey;
    /** By switch GUID. */
    private final Map<Long, Pushed> pushed = new ConcurrentHashMap<>();
    /** What the push in progress carried over ({@link #carryingOver}), from the fan-out's threads. */
    private final Queue<Carried> carried = new ConcurrentLinkedQueue<>();

    TablePush(FanOut fanOut, long mKey) {
        this.fanOut = fanOut;
        this.mKey = mKey;
    }

    /**
     * Writes every switch's tables; returns the LFT and AR LFT blocks that changed.
     *
     * @throws SweepException naming the switches that refused or did not answer (they keep their previous tables)
     */
    int push(Discovery.Result d, ForwardingTables t) throws SweepException, InterruptedException {
        Fabric f = t.fabric();
        List<Integer> switches = new ArrayList<>();
        for (int s = 0; s < f.switchCount(); s++) {
            switches.add(s);
        }
        carried.clear();
        List<FanOut.Result<Integer, Integer>> results = fanOut.run(switches, FanOut.Retry.NONE, s -> {
            DiscoveredNode node = d.byGuid().get(f.nodeGuid(f.switchNode(s)));
            return pushSwitch(node, SwitchInstall.of(t, s, RouteValidation.dataVls(d, s), true));
        });
        int changed = 0;
        List<String> failed = new ArrayList<>();
        for (FanOut.Result<Integer, Integer> r : results) {
            if (r.ok()) {
                changed += r.value();
            } else {
                failed.add(f.name(f.switchNode(r.item())) + ": " + FanOut.describe(r.failure()));
            }
        }
        if (!failed.isEmpty()) {
            throw new SweepException("table push failed on " + failed.size() + " switch(es), which keep their previous tables: "
                    + failed.subList(0, Math.min(5, failed.size())) + "; ports were not activated; the next sweep retries");
        }
        return changed;
    }

    /** The version this manager last moved switch {@code guid}'s tables to, or -1 if it has not written it. */
    long writtenVersion(long guid) {
        Pushed p = pushed.get(guid);
        return p == null ? -1 : p.version();
    }

    /** Forgets what this manager wrote to {@code guid}: its next push rewrites the switch whole. */
    void distrust(long guid) {
        pushed.remove(guid);
    }

    private int pushSwitch(DiscoveredNode node, SwitchInstall want) {
        long guid = node.info().getNodeGuid();
        long version = fanOut.stub(node.endpoint()).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
        Pushed known = pushed.get(guid);
        if (known == null && version == 0) {
            // never written: it holds what a fresh switch holds, nothing to read back
            known = new Pushed(0, SwitchInstall.FRESH);
        }
        boolean trusted = known != null && known.version() == version;
        if (!trusted || Long.compareUnsigned(version, MAX_VERSION) >= 0) {
            return replace(node, keepingSeed(want, heldRouting(node, want.dragonfly())), version);
        }
        want = carryingOver(node, keepingSeed(want, known.install().dragonfly()), known.install().dragonfly());
        try {
            return pushChanges(node, want, known, version);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.FAILED_PRECONDITION) {
                throw e;
            }
            // written by someone else between our read and our write: take it back whole
            return replace(node, keepingSeed(want, heldRouting(node, want.dragonfly())),
                    fanOut.stub(node.endpoint()).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion());
        }
    }

    /**
     * Rewrites switch {@code node}, found at {@code version}, whole: a replacing write of all of
     * {@code want} to the next version, or to version 1 from the ceiling.
     */
    private int replace(DiscoveredNode node, SwitchInstall want, long version) {
        long to = Long.compareUnsigned(version, MAX_VERSION) < 0 ? version + 1 : 1;
        WriteTablesRequest.Builder w = WriteTablesRequest.newBuilder().setMKey(mKey).setFromVersion(version).setToVersion(to);
        TableWriteEncoder.whole(w, want);
        int changed = fanOut.stub(node.endpoint()).writeTables(w.build()).getChangedBlocks();
        pushed.put(node.info().getNodeGuid(), new Pushed(to, want));
        return changed;
    }

    /** The incremental write of what differs from {@code known}, the tables this manager wrote at {@code version}. */
    private int pushChanges(DiscoveredNode node, SwitchInstall want, Pushed known, long version) {
        SwitchInstall held = known.install();
        WriteTablesRequest.Builder w = WriteTablesRequest.newBuilder().setMKey(mKey).setFromVersion(version).setToVersion(version + 1)
                .setLftTop(want.lftTop());
        for (int b = 0; b < want.blocks(); b++) {
            if (!Arrays.equals(heldBlock(held, b), want.lftBlock(b))) {
                TableWriteEncoder.lftBlock(w, want, b);
            }
        }
        // SL-to-VL maps cannot be read back: written unless this manager wrote the same ones last
        boolean lanesKnown = want.sameLanes(held);
        if (!lanesKnown) {
            TableWriteEncoder.lanes(w, want);
        }
        // AR tables: sent whole when they differ from what this manager wrote last
        boolean arKnown = want.sameAr(held);
        if (!arKnown) {
            TableWriteEncoder.ar(w, want, held.arGroups().length);
        }
        // source routing: the direction ports, when they differ from what the switch holds
        boolean directionsKnown = Arrays.equals(held.directionPorts(), want.directionPorts());
        if (!directionsKnown) {
            TableWriteEncoder.directions(w, want);
        }
        // Dragonfly routing: when it differs from what this manager wrote last (a switch keeps what it
        // learnt while the same routing is written again)
        boolean dragonflyKnown = Objects.equals(want.dragonfly(), held.dragonfly());
        if (!dragonflyKnown) {
            TableWriteEncoder.dragonfly(w, want);
        }
        long guid = node.info().getNodeGuid();
        if (w.getLftBlocksCount() == 0 && held.lftTop() == want.lftTop() && lanesKnown && arKnown && directionsKnown && dragonflyKnown) {
            pushed.put(guid, new Pushed(version, want));
            return 0;
        }
        int changed = fanOut.stub(node.endpoint()).writeTables(w.build()).getChangedBlocks();
        pushed.put(guid, new Pushed(version + 1, want));
        return changed;
    }

    /**
     * {@code want} with the seed of {@code held}, the routing the switch holds, when the two differ
     * in the seed alone: a learning switch keeps its seed (and with it what it learnt, the write
     * being of the routing it holds). Otherwise {@code want} as it is.
     */
    private static SwitchInstall keepingSeed(SwitchInstall want, DragonflySwitch held) {
        DragonflySwitch w = want.dragonfly();
        if (w == null || held == null || w.qSeed() == null || !w.sameRouting(held) || Arrays.equals(w.qSeed(), held.qSeed())) {
            return want;
        }
        return want.withDragonfly(held);
    }

    /**
     * {@code want} with what switch {@code node} learnt under {@code held} (the Q-adaptive routing
     * this manager wrote it) as its seed, where the routing changed (a link failed or came back):
     * {@link QSeeds#carryOver}, so only the rows whose minimal way changed start again from the
     * new seed, and in the rest only the columns of ports that lead elsewhere now. {@code want} as
     * it is where the routing did not change or nothing carries over.
     */
    private SwitchInstall carryingOver(DiscoveredNode node, SwitchInstall want, DragonflySwitch held) {
        DragonflySwitch w = want.dragonfly();
        if (w == null || held == null || w.qSeed() == null || held.qSeed() == null || w.sameRouting(held)) {
            return want;
        }
        List<Float> values = fanOut.stub(node.endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance()).getQValuesList();
        float[] learnt = new float[values.size()];
        for (int i = 0; i < learnt.length; i++) {
            learnt[i] = values.get(i);
        }
        QSeeds.CarriedOver c = QSeeds.carryOver(held, learnt, w);
        if (c == null) {
            return want;
        }
        carried.add(new Carried(node.info().getDescription(), c.rowsKept(), c.rowsReseeded()));
        try {
            return want.withDragonfly(w.withQSeed(c.seed()));
        } catch (IllegalArgumentException e) {
            return want; // learnt values no switch takes as a seed (a negative time): the new seed whole
        }
    }

    /** A switch whose learnt Q-values a push carried over a routing change, with its rows kept and reseeded. */
    record Carried(String name, int rowsKept, int rowsReseeded) {
    }

    /** The switches whose learnt Q-values the last {@link #push} carried over a routing change. */
    List<Carried> carriedOver() {
        return List.copyOf(carried);
    }

    /**
     * The routing switch {@code node} holds, read back, as far as it matters to {@link
     * #keepingSeed}: {@code want} with the switch's seed when the switch holds the same routing
     * (compared on the wire, the seed left out), else null. No read unless {@code want} has a seed.
     */
    private DragonflySwitch heldRouting(DiscoveredNode node, DragonflySwitch want) {
        if (want == null || want.qSeed() == null) {
            return null;
        }
        DragonflyRouting held = fanOut.stub(node.endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.newBuilder().setFull(true).build())
                .getRouting();
        if (held.getQSeedCount() != want.qSeed().length
                || !held.toBuilder().clearQSeed().build().equals(DragonflyWire.encode(want).toBuilder().clearQSeed().build())) {
            return null;
        }
        float[] seed = new float[held.getQSeedCount()];
        for (int i = 0; i < seed.length; i++) {
            seed[i] = held.getQSeed(i);
        }
        return want.withQSeed(seed);
    }

    /** What a switch held before {@link #restartLearning} wrote it: its version, and the Q-values it had learnt. */
    private record Before(long version, float[] values) {
    }

    /**
     * Installs {@code want[s]} on every switch {@code s}, each the Q-adaptive routing the switch
     * holds with the seed to learn from now (a reseed, or a snapshot's values), with {@code
     * restart_learning}, so that every switch starts again from it: on every switch or none. First
     * every switch must be at the version this manager wrote and hold the routing {@code want}
     * differs from only in the seed (else nothing is written); then the writes; if a switch refuses
     * or does not answer, the switches already written are written again with the routing they held
     * and the Q-values they had learnt as its seed (what they learnt between the read and the
     * write back is lost).
     *
     * @return the switches written
     * @throws SweepException saying why nothing was written, or which switch refused and that the
     *                        others were put back (or could not be)
     */
    int restartLearning(Discovery.Result d, Fabric f, DragonflySwitch[] want) throws SweepException, InterruptedException {
        List<Integer> switches = new ArrayList<>();
        for (int s = 0; s < f.switchCount(); s++) {
            switches.add(s);
        }
        List<FanOut.Result<Integer, Before>> before = fanOut.run(switches, FanOut.Retry.IDEMPOTENT, s -> {
            var stub = fanOut.stub(node(d, f, s).endpoint());
            long version = stub.getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
            List<Float> q = stub.getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance()).getQValuesList();
            float[] values = new float[q.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = q.get(i);
            }
            return new Before(version, values);
        });
        List<String> refused = new ArrayList<>();
        DragonflySwitch[] prior = new DragonflySwitch[want.length];
        for (FanOut.Result<Integer, Before> r : before) {
            int s = r.item();
            Pushed known = pushed.get(node(d, f, s).info().getNodeGuid());
            prior[s] = known == null ? null : known.install().dragonfly();
            if (!r.ok()) {
                refused.add(name(f, s) + " did not answer (" + FanOut.describe(r.failure()) + ")");
            } else if (known == null || known.version() != r.value().version() || !want[s].sameRouting(known.install().dragonfly())) {
                refused.add(name(f, s) + " is at table version " + r.value().version() + ", which this manager did not write with this "
                        + "routing (a sweep takes it back first)");
            }
        }
        if (!refused.isEmpty()) {
            throw new SweepException("no switch was written: " + first(refused));
        }
        List<FanOut.Result<Integer, Long>> written = fanOut.run(switches, FanOut.Retry.NONE,
                s -> restartOne(d, f, s, before.get(s).value().version(), want[s]));
        List<Integer> done = new ArrayList<>();
        for (FanOut.Result<Integer, Long> r : written) {
            if (r.ok()) {
                done.add(r.item());
            } else {
                refused.add(name(f, r.item()) + ": " + FanOut.describe(r.failure()));
            }
        }
        if (refused.isEmpty()) {
            return done.size();
        }
        List<String> stuck = new ArrayList<>();
        for (FanOut.Result<Integer, Long> r : fanOut.run(done, FanOut.Retry.NONE,
                s -> restartOne(d, f, s, written.get(s).value(), asLearnt(before.get(s).value().values(), prior[s])))) {
            if (!r.ok()) {
                stuck.add(name(f, r.item()) + ": " + FanOut.describe(r.failure()));
            }
        }
        throw new SweepException(refused.size() + " switch(es) refused the Q-table write: " + first(refused) + "; "
                + (stuck.isEmpty() ? "the " + done.size() + " already written were put back to the Q-values they held"
                        : stuck.size() + " of the " + done.size() + " already written could not be put back and keep the new values: "
                        + first(stuck)));
    }

    /** The routing a switch held before a restart with the values it had learnt as the seed, where they make one. */
    private static DragonflySwitch asLearnt(float[] learnt, DragonflySwitch prior) {
        try {
            return prior.withQSeed(learnt);
        } catch (IllegalArgumentException e) {
            return prior; // learnt values no switch takes as a seed (a negative time): its seed, then
        }
    }

    /** Writes {@code routing} to switch {@code s}, found at {@code version}, with learning restarted; returns the new version. */
    private long restartOne(Discovery.Result d, Fabric f, int s, long version, DragonflySwitch routing) {
        DiscoveredNode node = node(d, f, s);
        WriteTablesRequest w = WriteTablesRequest.newBuilder().setMKey(mKey).setFromVersion(version).setToVersion(version + 1)
                .setDragonfly(DragonflyWire.encode(routing)).setRestartLearning(true).build();
        fanOut.stub(node.endpoint()).writeTables(w);
        long guid = node.info().getNodeGuid();
        pushed.put(guid, new Pushed(version + 1, pushed.get(guid).install().withDragonfly(routing)));
        return version + 1;
    }

    private static DiscoveredNode node(Discovery.Result d, Fabric f, int s) {
        return d.byGuid().get(f.nodeGuid(f.switchNode(s)));
    }

    private static String name(Fabric f, int s) {
        return f.name(f.switchNode(s));
    }

    /** The first few of {@code problems}, and how many more. */
    private static String first(List<String> problems) {
        return String.join("; ", problems.subList(0, Math.min(3, problems.size())))
                + (problems.size() > 3 ? " (and " + (problems.size() - 3) + " more)" : "");
    }

    /** Block {@code b} as {@code held} has it; entries past its end are "no route". */
    private static byte[] heldBlock(SwitchInstall held, int b) {
        if (b < held.blocks()) {
            return held.lftBlock(b);
        }
        byte[] none = new byte[SwitchInstall.BLOCK];
        Arrays.fill(none, (byte) ForwardingTables.NO_PATH);
        return none;
    }
}
