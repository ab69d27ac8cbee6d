package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetQTableRequest;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.ListQTableSnapshotsRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.QTableRow;
import org.fabriclab.proto.v1.QTableSnapshotInfo;
import org.fabriclab.proto.v1.ReseedQTablesRequest;
import org.fabriclab.proto.v1.RestoreQTableSnapshotRequest;
import org.fabriclab.proto.v1.SaveQTableSnapshotRequest;
import org.fabriclab.proto.v1.SetEngineRequest;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.QTableSnapshot;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Q-table calls given bad input, against the real daemon ({@code fabric-manager --emulate
 * dragonfly:p=1,a=4,h=1 --engine q-adaptive}, an admin token, no traffic) over its real admin
 * gRPC: an unknown switch, rows beyond the table, bad snapshot names, a snapshot that does not
 * exist, one of another fabric (another shape; the same shape with other switches), one cut short,
 * damaged, not a snapshot at all, or holding values no switch starts from, an unknown seed policy,
 * the writing calls without the token, a switch that refuses the write (re-keyed by a stranger),
 * and a fabric routed by an engine without Q-tables. Each gets its code with the reason (at most
 * 1,024 characters), and no switch's Q-table changes: every switch's values and seed, read over
 * the switches' own management endpoints, are the same after as before (and so is its table
 * version, but where a write was refused and put back). fabricctl says the same in one line, exit 2.
 */
class QTableBadInputTest {
    private static final String TOKEN = "qtable-admin-token-0123456789";
    /** The M_Key the daemon runs with ({@link QTableVerbsTest#daemon}). */
    private static final long KEY = 0x5eed;

    /** Every switch's Q-values and seed, in switch order, as the switches answer; with their table versions if {@code versions}. */
    private static List<String> tables(EmulatedDaemon d, boolean versions) {
        List<String> out = new ArrayList<>();
        for (DiscoveredNode n : d.manager().snapshot().discovered().nodes()) {
            if (n.info().getType() != NodeType.NODE_TYPE_SWITCH) {
                continue;
            }
            ManagementGrpc.ManagementBlockingStub sw = d.manager().channels().blocking(n.endpoint());
            DragonflyState st = sw.getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance());
            out.add(n.info().getDescription() + " " + st.getQValuesList() + " seed " + st.getQSeedList()
                    + (versions ? " v" + sw.getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion() : ""));
        }
        return out;
    }

    /** {@code call} is refused with {@code code} and a reason mentioning {@code mentions}, and changed no switch. */
    private static void refused(EmulatedDaemon d, Status.Code code, String mentions, Supplier<?> call) {
        List<String> before = tables(d, true);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::get, mentions);
        String why = e.getStatus().getDescription();
        assertEquals(code, e.getStatus().getCode(), why);
        assertTrue(why != null && why.contains(mentions) && why.length() <= Excerpt.MESSAGE, "'" + mentions + "' in: " + why);
        assertEquals(before, tables(d, true), "a refused call changed a switch: " + why);
    }

    /** A snapshot of {@code t}'s tables with seeded random values (ns), as the bytes of its file. */
    private static byte[] snapshot(DragonflyTables t, long seed, float offset) {
        Random random = new Random(seed);
        List<float[]> values = new ArrayList<>();
        for (int s = 0; s < t.dragonfly().fabric().switchCount(); s++) {
            float[] q = new float[t.of(s).rows() * t.of(s).columns()];
            for (int i = 0; i < q.length; i++) {
                q[i] = offset + random.nextInt(2000);
            }
            values.add(q);
        }
        return QTableSnapshot.of(t, values, 1_790_000_000_000L + seed).write();
    }

    @Test
    void badQTableCallsGetTheirCodeAndReasonAndChangeNoSwitch(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        Path state = dir.resolve("state");
        try (EmulatedDaemon d = QTableVerbsTest.daemon(state, "--traffic", "none", "--admin-token-file", token.toString())) {
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", d.running().adminPort()).usePlaintext().build();
            try {
                AdminGrpc.AdminBlockingStub anonymous = AdminGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
                Metadata m = new Metadata();
                m.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
                AdminGrpc.AdminBlockingStub admin = anonymous.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
                run(d, admin, anonymous, state.resolve("qtables"));
            } finally {
                ch.shutdownNow();
            }
        }
    }

    private static void run(EmulatedDaemon d, AdminGrpc.AdminBlockingStub admin, AdminGrpc.AdminBlockingStub anonymous, Path snapshots)
            throws Exception {
        Status.Code invalid = Status.Code.INVALID_ARGUMENT;
        Status.Code precondition = Status.Code.FAILED_PRECONDITION;
        DragonflyTables routed = d.manager().snapshot().outcome().tables().dragonfly();
        // switches holding values of their own, not their seed: a valid snapshot restored
        Files.createDirectories(snapshots);
        Files.write(snapshots.resolve("lab.qts"), snapshot(routed, 1, 100));
        admin.restoreQTableSnapshot(RestoreQTableSnapshotRequest.newBuilder().setName("lab").build());
        List<String> lab = tables(d, false);

        // switches and rows
        refused(d, invalid, "no switch named \"G9_S9\"", () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G9_S9").build()));
        refused(d, invalid, "\"G0_S0_H0\" is a host, not a switch",
                () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G0_S0_H0").build()));
        refused(d, invalid, "no switch named \"0x1234\"", () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("0x1234").build()));
        refused(d, invalid, "which switch?", () -> admin.getQTable(GetQTableRequest.getDefaultInstance()));
        refused(d, invalid, "(65536 characters)", () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G".repeat(65_536)).build()));
        refused(d, invalid, "row 5,0 is beyond G1_S2's Q-table: groups 0..4, host slots 0..0", () -> admin.getQTable(
                GetQTableRequest.newBuilder().setSwitch("G1_S2").setRow(QTableRow.newBuilder().setGroup(5)).build()));
        refused(d, invalid, "row 0,1 is beyond", () -> admin.getQTable(
                GetQTableRequest.newBuilder().setSwitch("G1_S2").setRow(QTableRow.newBuilder().setSlot(1)).build()));
        refused(d, invalid, "row 4294967295,0 is beyond", () -> admin.getQTable(
                GetQTableRequest.newBuilder().setSwitch("G1_S2").setRow(QTableRow.newBuilder().setGroup(-1)).build()));
        refused(d, invalid, "row 5 is beyond G1_S2's Q-table of 5 rows (0..4)",
                () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G1_S2").setFirstRow(5).build()));
        refused(d, invalid, "rows 3 to 5 are beyond", () -> admin.getQTable(
                GetQTableRequest.newBuilder().setSwitch("G1_S2").setFirstRow(3).setRowCount(3).build()));
        refused(d, invalid, "rows 1 to 4294967295 are beyond", () -> admin.getQTable(
                GetQTableRequest.newBuilder().setSwitch("G1_S2").setFirstRow(1).setRowCount(-1).build()));
        refused(d, invalid, "not both", () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G1_S2").setFirstRow(1)
                .setRow(QTableRow.newBuilder().setGroup(2)).build()));

        // names: one file of the snapshots' directory, never a path
        for (String bad : new String[] {"../m-key", "a/b", "/tmp/x", ".hidden", "", "a b", "lab\0", "x".repeat(65), "..", "lab\\x"}) {
            refused(d, invalid, "is not 1 to 64 letters, digits", () -> admin.saveQTableSnapshot(
                    SaveQTableSnapshotRequest.newBuilder().setName(bad).build()));
            refused(d, invalid, "no path separators", () -> admin.restoreQTableSnapshot(
                    RestoreQTableSnapshotRequest.newBuilder().setName(bad).build()));
        }
        assertFalse(Files.exists(snapshots.resolve("..").resolve("m-key.qts")), "nothing written beside the state");
        refused(d, Status.Code.NOT_FOUND, "no snapshot named nosuch", () -> admin.restoreQTableSnapshot(
                RestoreQTableSnapshotRequest.newBuilder().setName("nosuch").build()));

        // snapshots that cannot go back on this fabric
        byte[] good = snapshot(routed, 2, 300);
        Fabric small = Topologies.generate("dragonfly:p=1,a=2,h=1");
        DragonflyTables other = new DragonflyEngine(DragonflyAlgorithm.Q_ADAPTIVE).route(new RoutingRequest(small,
                LidAssigner.assign(small), RoutingOptions.DEFAULTS.withParams(Map.of()))).dragonfly();
        Files.write(snapshots.resolve("other.qts"), snapshot(other, 3, 0));
        QTableSnapshot labSnap = QTableSnapshot.read(good, "good");
        long[] guids = labSnap.fabric().guids();
        guids[7] ^= 0x40;
        List<QTableSnapshot.Table> tables = new ArrayList<>();
        for (int s = 0; s < guids.length; s++) {
            tables.add(labSnap.table(s));
        }
        Files.write(snapshots.resolve("stranger.qts"), new QTableSnapshot(0, new QTableSnapshot.Fingerprint(5, 4, 1, guids,
                labSnap.fabric().ports()), tables).write());
        Files.write(snapshots.resolve("truncated.qts"), Arrays.copyOf(good, good.length / 2));
        byte[] damaged = good.clone();
        damaged[good.length / 3] ^= 1;
        Files.write(snapshots.resolve("damaged.qts"), damaged);
        Files.writeString(snapshots.resolve("notes.qts"), "Q-tables learnt under ADV+1\n", StandardCharsets.UTF_8);
        Files.write(snapshots.resolve("negative.qts"), snapshot(routed, 4, -5000));
        Files.write(snapshots.resolve("empty.qts"), new byte[0]);
        Map<String, String> why = Map.of(
                "other", "snapshot other.qts: a snapshot of another fabric: it is of a dragonfly of 3 groups of 2 routers with 1 host "
                        + "each, this fabric is 5 groups of 4 routers with 1 host each; nothing was written",
                "stranger", "a snapshot of another fabric: 1 of its 20 switches are not this fabric's (switch 7 is",
                "truncated", "snapshot truncated.qts: cut short: " + good.length / 2 + " bytes, the header says " + good.length,
                "damaged", "snapshot damaged.qts: damaged: its CRC-32 is 0x",
                "notes", "snapshot notes.qts: not a Q-table snapshot: it starts with 0x51 0x2d 0x74 0x61",
                "negative", "cannot start from (Q-table seed value -",
                "empty", "snapshot empty.qts: cut short: 0 bytes, less than a snapshot's 44-byte header and checksum");
        for (Map.Entry<String, String> e : why.entrySet()) {
            refused(d, precondition, e.getValue(), () -> admin.restoreQTableSnapshot(
                    RestoreQTableSnapshotRequest.newBuilder().setName(e.getKey()).build()));
        }
        // the listing says the same of each, and that lab fits
        for (QTableSnapshotInfo i : admin.listQTableSnapshots(ListQTableSnapshotsRequest.getDefaultInstance()).getSnapshotsList()) {
            if (i.getName().equals("lab")) {
                assertTrue(i.getFits(), i.toString());
            } else if (!i.getName().equals("negative")) { // sound and of this fabric: only the switches refuse its values
                assertFalse(i.getFits(), i.toString());
                assertTrue(why.get(i.getName()).contains(i.getProblem().substring(0, Math.min(20, i.getProblem().length()))), i.toString());
            }
        }

        // policies, and the writing calls without the token
        refused(d, invalid, "qtable_seed=random is no seed policy", () -> admin.reseedQTables(ReseedQTablesRequest.newBuilder()
                .setPolicy("random").build()));
        refused(d, Status.Code.UNAUTHENTICATED, "SaveQTableSnapshot changes the fabric and needs the admin token",
                () -> anonymous.saveQTableSnapshot(SaveQTableSnapshotRequest.newBuilder().setName("x").build()));
        refused(d, Status.Code.UNAUTHENTICATED, "RestoreQTableSnapshot changes the fabric",
                () -> anonymous.restoreQTableSnapshot(RestoreQTableSnapshotRequest.newBuilder().setName("lab").build()));
        refused(d, Status.Code.UNAUTHENTICATED, "ReseedQTables changes the fabric",
                () -> anonymous.reseedQTables(ReseedQTablesRequest.newBuilder().setPolicy("zero").build()));
        assertFalse(Files.exists(snapshots.resolve("x.qts")));
        assertEquals(lab, tables(d, false), "the switches hold lab's values still");

        // fabricctl: one line, exit 2, the code and the reason
        FabricCtlTest.Run cli = FabricCtlTest.run("qtable", "G9_S9", "--server", d.server());
        assertEquals(2, cli.code(), cli.out());
        assertEquals("fabricctl: INVALID_ARGUMENT: no switch named \"G9_S9\" or with that GUID in the fabric; fabricctl topology lists its "
                + "nodes", cli.err().strip());
        cli = FabricCtlTest.run("qtable", "snapshot", "restore", "truncated", "--server", d.server(), "--token-file", tokenFile(snapshots));
        assertEquals(2, cli.code(), cli.out());
        assertEquals(1, cli.err().lines().count(), cli.err());
        assertTrue(cli.err().startsWith("fabricctl: FAILED_PRECONDITION: snapshot truncated.qts: cut short: "), cli.err());
        cli = FabricCtlTest.run("qtable", "G1_S2", "--row", "1", "--server", d.server());
        assertEquals(2, cli.code(), cli.out());
        assertEquals(1, cli.err().lines().count(), cli.err());
        assertTrue(cli.err().contains("'1' is not GROUP,SLOT"), cli.err());
        cli = FabricCtlTest.run("qtable", "reseed", "--policy", "zero", "--server", d.server());
        assertEquals(2, cli.code(), cli.out());
        assertTrue(cli.err().startsWith("fabricctl: UNAUTHENTICATED: ReseedQTables changes the fabric"), cli.err());
        assertEquals(lab, tables(d, false));

        // a switch that refuses the write: re-keyed by a stranger; the others are put back, the call fails naming it
        DiscoveredNode victim = d.manager().snapshot().discovered().nodes().stream()
                .filter(n -> n.info().getDescription().equals("G3_S1")).findFirst().orElseThrow();
        rekey(d, victim, KEY, 0xbad);
        Files.write(snapshots.resolve("next.qts"), snapshot(routed, 5, 700));
        List<String> before = tables(d, false);
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> admin.restoreQTableSnapshot(
                RestoreQTableSnapshotRequest.newBuilder().setName("next").build()));
        assertEquals(precondition, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().startsWith("restoring snapshot next: 1 switch(es) refused the Q-table write: G3_S1: "
                + "PERMISSION_DENIED"), e.getStatus().getDescription());
        assertTrue(e.getStatus().getDescription().endsWith("the 19 already written were put back to the Q-values they held"),
                e.getStatus().getDescription());
        assertEquals(before, tables(d, false), "every switch holds the values it held");
        e = assertThrows(StatusRuntimeException.class, () -> admin.reseedQTables(ReseedQTablesRequest.newBuilder().setPolicy("zero").build()));
        assertTrue(e.getStatus().getDescription().startsWith("reseeding with zero: 1 switch(es) refused the Q-table write: G3_S1: "),
                e.getStatus().getDescription());
        assertEquals(before, tables(d, false), "every switch holds the values it held");
        // the key back: the same restore goes through
        rekey(d, victim, 0xbad, KEY);
        admin.restoreQTableSnapshot(RestoreQTableSnapshotRequest.newBuilder().setName("next").build());
        assertFalse(before.equals(tables(d, false)), "restored now");

        // a fabric routed by an engine that keeps no Q-tables
        admin.setEngine(SetEngineRequest.newBuilder().setChain("df-ugalg").build());
        String none = "the fabric is routed by df-ugalg, which keeps no Q-tables";
        refused(d, precondition, none, () -> admin.getQTable(GetQTableRequest.newBuilder().setSwitch("G1_S2").build()));
        refused(d, precondition, none, () -> admin.saveQTableSnapshot(SaveQTableSnapshotRequest.newBuilder().setName("ugal").build()));
        refused(d, precondition, none, () -> admin.restoreQTableSnapshot(RestoreQTableSnapshotRequest.newBuilder().setName("lab").build()));
        refused(d, precondition, none, () -> admin.reseedQTables(ReseedQTablesRequest.getDefaultInstance()));
        assertFalse(Files.exists(snapshots.resolve("ugal.qts")));
    }

    /** Sets switch {@code n}'s M_Key from {@code from} to {@code to}, SMInfo otherwise as it is: what a stranger with the key could do. */
    private static void rekey(EmulatedDaemon d, DiscoveredNode n, long from, long to) {
        ManagementGrpc.ManagementBlockingStub sw = d.manager().channels().blocking(n.endpoint());
        SmInfo sm = sw.getSmInfo(GetSmInfoRequest.getDefaultInstance());
        sw.setSmInfo(SetSmInfoRequest.newBuilder().setMKey(from).setNewMKey(to).setSmGuid(sm.getSmGuid()).setPriority(sm.getPriority())
                .setState(sm.getState()).setActCount(sm.getActCount()).build());
    }

    private static String tokenFile(Path snapshots) {
        return snapshots.getParent().getParent().resolve("token").toString();
    }
}
