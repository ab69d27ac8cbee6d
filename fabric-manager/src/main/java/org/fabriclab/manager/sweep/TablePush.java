package org.fabriclab.manager.sweep;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.DragonflyRouting;
import org.fabriclab.proto.v1.GetArTablesRequest;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.SwitchInfo;
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
 * reading back; a switch it did not write last (a restart, another manager) is read back where
 * the contract allows (LFT blocks, AR groups, direction ports) and given its SL-to-VL maps anew.
 *
 * <p>Thread-safety: {@link #push} runs on the sweep thread; the per-switch calls on the fan-out's,
 * each call with the fan-out's deadline.
 */
final class TablePush {
    /** What this manager last wrote to a switch: the version it moved it to and the tables. */
    private record Pushed(long version, SwitchInstall install) {
    }

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

    private int pushSwitch(DiscoveredNode node, SwitchInstall want) {
        long guid = node.info().getNodeGuid();
        long version = fanOut.stub(node.endpoint()).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
        Pushed known = pushed.get(guid);
        if (known == null && version == 0) {
            // never written: it holds what a fresh switch holds, nothing to read back
            known = new Pushed(0, SwitchInstall.FRESH);
        }
        boolean trusted = known != null && known.version() == version;
        SwitchInfo info = node.switchInfo();
        WriteTablesRequest.Builder w = WriteTablesRequest.newBuilder().setMKey(mKey).setFromVersion(version).setToVersion(version + 1)
                .setLftTop(want.lftTop());
        for (int b = 0; b < want.blocks(); b++) {
            byte[] held;
            if (trusted) {
                held = heldBlock(known.install(), b);
            } else {
                // a switch we did not write last (a restart, another manager): read what it holds
                held = fanOut.stub(node.endpoint()).getLftBlock(GetLftBlockRequest.newBuilder().setBlock(b).build()).getPorts().toByteArray();
            }
            if (!Arrays.equals(held, want.lftBlock(b))) {
                TableWriteEncoder.lftBlock(w, want, b);
            }
        }
        int top = trusted ? known.install().lftTop() : info == null ? -1 : info.getLftTop();
        // SL-to-VL maps cannot be read back: written unless this manager wrote the same ones last
        boolean lanesKnown = trusted && want.sameLanes(known.install());
        if (!lanesKnown) {
            TableWriteEncoder.lanes(w, want);
        }
        // AR tables: sent whole when they differ from what this manager wrote last; to a switch it
        // did not write last, only if it has AR on or the engine makes AR tables (groups are few)
        boolean arKnown = trusted ? want.sameAr(known.install())
                : !want.arEnabled() && want.arGroups().length == 0 && (info == null || !info.getArEnabled());
        if (!arKnown) {
            int groupsBefore = trusted ? known.install().arGroups().length
                    : fanOut.stub(node.endpoint()).getArTables(GetArTablesRequest.getDefaultInstance()).getGroupsList().stream().mapToInt(ArGroup::getGroup)
                    .max().orElse(0);
            TableWriteEncoder.ar(w, want, groupsBefore);
        }
        // source routing: the direction ports, when they differ from what the switch holds
        int[] heldDirections = trusted ? known.install().directionPorts() : info == null ? new int[0]
                : info.getDirectionPortsList().stream().mapToInt(Integer::intValue).toArray();
        boolean directionsKnown = Arrays.equals(heldDirections, want.directionPorts());
        if (!directionsKnown) {
            TableWriteEncoder.directions(w, want);
        }
        // Dragonfly routing: written when it differs from what this manager wrote last, or (to a switch
        // it did not write last) from what the switch reports; a Q-adaptive switch keeps what it
        // learnt unless the routing is written anew
        boolean dragonflyKnown = trusted ? Objects.equals(want.dragonfly(), known.install().dragonfly())
                : DragonflyWire.encode(want.dragonfly()).equals(heldDragonfly(node));
        if (!dragonflyKnown) {
            TableWriteEncoder.dragonfly(w, want);
        }
        if (w.getLftBlocksCount() == 0 && top == want.lftTop() && lanesKnown && arKnown && directionsKnown && dragonflyKnown) {
            pushed.put(guid, new Pushed(version, want));
            return 0;
        }
        int changed = fanOut.stub(node.endpoint()).writeTables(w.build()).getChangedBlocks();
        pushed.put(guid, new Pushed(version + 1, want));
        return changed;
    }

    /** The Dragonfly routing the switch holds, whole (a switch that learns keeps its Q-table unless it is written anew). */
    private DragonflyRouting heldDragonfly(DiscoveredNode node) {
        return fanOut.stub(node.endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.newBuilder().setFull(true).setRowCount(1).build())
                .getRouting();
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
