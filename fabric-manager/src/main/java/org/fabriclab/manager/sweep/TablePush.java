package org.fabriclab.manager.sweep;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
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
            return replace(node, want, version);
        }
        try {
            return pushChanges(node, want, known, version);
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.FAILED_PRECONDITION) {
                throw e;
            }
            // written by someone else between our read and our write: take it back whole
            return replace(node, want, fanOut.stub(node.endpoint()).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion());
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
