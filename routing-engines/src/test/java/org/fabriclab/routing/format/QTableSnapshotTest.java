package org.fabriclab.routing.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Q-table snapshot file: written and read back the same; laid out as its javadoc documents
 * (checked by reading the documented offsets and a CRC-32 computed here bit by bit, not by the
 * class's own reader); refused with the file and the reason when it is not a snapshot, cut short,
 * longer than it says, damaged, of another version, inconsistent, of another fabric or of tables of
 * another shape.
 */
class QTableSnapshotTest {
    static final String SPEC = "dragonfly:p=1,a=4,h=1";

    static DragonflyTables routed(String spec, DragonflyAlgorithm a) throws RoutingException {
        Fabric f = Topologies.generate(spec);
        return new DragonflyEngine(a).route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS.withParams(Map.of())))
                .dragonfly();
    }

    /** The seeds of {@code t} moved by seeded noise, as if learnt. */
    static List<float[]> learnt(DragonflyTables t, long seed) {
        Random random = new Random(seed);
        List<float[]> out = new ArrayList<>();
        for (int s = 0; s < t.dragonfly().fabric().switchCount(); s++) {
            float[] q = t.of(s).qSeed().clone();
            for (int i = 0; i < q.length; i++) {
                q[i] += random.nextFloat() * 500;
            }
            out.add(q);
        }
        return out;
    }

    static QTableSnapshot snapshot(long seed) throws RoutingException {
        DragonflyTables t = routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE);
        return QTableSnapshot.of(t, learnt(t, seed), 1_790_000_000_000L);
    }

    @Test
    void aSnapshotReadsBackAsItWasWrittenAndFitsItsFabric() throws Exception {
        DragonflyTables t = routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE);
        List<float[]> values = learnt(t, 7);
        QTableSnapshot s = QTableSnapshot.of(t, values, 1_790_000_000_000L);
        byte[] bytes = s.write();
        assertEquals(s.length(), bytes.length);
        QTableSnapshot back = QTableSnapshot.read(bytes, "x.qts");
        assertEquals(s, back);
        assertEquals(1_790_000_000_000L, back.createdMillis());
        for (int i = 0; i < 20; i++) {
            assertArrayEquals(values.get(i), back.table(i).values());
        }
        back.checkFits(t, "x.qts");
        assertArrayEquals(bytes, back.write(), "written again, the same bytes");
    }

    @Test
    void aFileWrittenWholeSeedsTheRoutingWithItsValues(@TempDir Path dir) throws Exception {
        DragonflyTables t = routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE);
        QTableSnapshot s = snapshot(3);
        Path file = dir.resolve("learnt.qts");
        s.write(file);
        assertEquals(List.of(file), listed(dir), "no temporary file left beside it");
        QTableSnapshot back = QTableSnapshot.read(file, "learnt.qts");
        assertEquals(s, back);
        DragonflyTables seeded = back.seed(t, "learnt.qts");
        for (int k = 0; k < 20; k++) {
            assertArrayEquals(s.table(k).values(), seeded.of(k).qSeed(), "switch " + k + " starts from the snapshot");
            assertTrue(seeded.of(k).sameRouting(t.of(k)), "and routes as before");
        }
        // a sound snapshot of this fabric whose values no router can start from: refused, naming the switch
        List<QTableSnapshot.Table> negative = new ArrayList<>(tables(s));
        float[] v = negative.get(4).values();
        v[0] = -1;
        negative.set(4, new QTableSnapshot.Table(v.length / negative.get(4).columns(), negative.get(4).columnPorts(), v));
        QTableSnapshotException e = assertThrows(QTableSnapshotException.class,
                () -> new QTableSnapshot(1, s.fabric(), negative).seed(t, "neg.qts"));
        assertEquals(QTableSnapshotException.Kind.MISMATCH, e.kind());
        assertTrue(e.getMessage().startsWith("neg.qts: it holds values switch " + Guids.format(s.fabric().guids()[4])
                + " cannot start from (Q-table seed value -1"), e.getMessage());
        Path big = dir.resolve("big.qts");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(QTableSnapshot.MAX_BYTES + 1);
        }
        QTableSnapshotException tooBig = assertThrows(QTableSnapshotException.class, () -> QTableSnapshot.read(big, "big.qts"));
        assertEquals("big.qts: " + (QTableSnapshot.MAX_BYTES + 1) + " bytes, beyond the " + QTableSnapshot.MAX_BYTES + " of any snapshot",
                tooBig.getMessage());
    }

    private static List<Path> listed(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void theLayoutIsTheDocumentedOne() throws Exception {
        DragonflyTables t = routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE);
        List<float[]> values = learnt(t, 7);
        byte[] bytes = QTableSnapshot.of(t, values, 42).write();
        ByteBuffer b = ByteBuffer.wrap(bytes);
        assertEquals("FLQT", new String(bytes, 0, 4, StandardCharsets.US_ASCII));
        assertEquals(1, b.getShort(4));
        assertEquals(0, b.getShort(6));
        assertEquals(bytes.length, b.getLong(8));
        assertEquals(42, b.getLong(16));
        assertEquals(5, b.getInt(24));
        assertEquals(4, b.getInt(28));
        assertEquals(1, b.getInt(32));
        assertEquals(20, b.getInt(36));
        Fabric f = t.dragonfly().fabric();
        for (int s = 0; s < 20; s++) {
            assertEquals(f.nodeGuid(f.switchNode(s)), b.getLong(40 + 12 * s));
            assertEquals(f.portCount(f.switchNode(s)), b.getShort(48 + 12 * s));
        }
        int at = 40 + 12 * 20;
        for (int s = 0; s < 20; s++) {
            DragonflySwitch r = t.of(s);
            assertEquals(5, b.getInt(at));
            assertEquals(4, b.getShort(at + 4));
            at += 8;
            for (int c = 0; c < 4; c++) {
                assertEquals(r.portOfColumn(c), b.getShort(at));
                at += 2;
            }
            for (float v : values.get(s)) {
                assertEquals(v, b.getFloat(at));
                at += 4;
            }
        }
        assertEquals(bytes.length - 4, at);
        assertEquals(crc32(bytes, at), b.getInt(at) & 0xFFFF_FFFFL);
    }

    @Test
    void whatIsNoSnapshotOrIsCutShortOrLongerOrDamagedIsRefusedWithTheReason() throws Exception {
        byte[] good = snapshot(1).write();
        refused(new byte[0], "cut short: 0 bytes, less than a snapshot's 44-byte header and checksum");
        refused("Switch 24 \"S-0002c90000000001\"".getBytes(StandardCharsets.US_ASCII),
                "not a Q-table snapshot: it starts with 0x53 0x77 0x69 0x74, not \"FLQT\"");
        refused(Arrays.copyOf(good, 30), "cut short: 30 bytes, less than a snapshot's 44-byte header and checksum");
        refused(Arrays.copyOf(good, good.length - 10), "cut short: " + (good.length - 10) + " bytes, the header says " + good.length);
        refused(Arrays.copyOf(good, good.length + 3), good.length + " bytes by its header, but " + (good.length + 3) + ": data after the end");
        byte[] flipped = good.clone();
        flipped[400] ^= 0x10;
        refused(flipped, "damaged: its CRC-32 is 0x");
        byte[] newer = good.clone();
        ByteBuffer.wrap(newer).putShort(4, (short) 2);
        refused(sealed(newer), "format version 2, and this fabriclab reads version 1 (written by a newer one)");
    }

    @Test
    void aSealedFileWhoseContentsContradictThemselvesIsRefused() throws Exception {
        byte[] good = snapshot(1).write();
        byte[] more = good.clone();
        ByteBuffer.wrap(more).putInt(36, 21);
        refused(sealed(more), "at byte ");
        byte[] huge = good.clone();
        ByteBuffer.wrap(huge).putInt(36, Integer.MAX_VALUE);
        refused(sealed(huge), "it lists 2147483647 switches, more than its " + good.length + " bytes can hold");
        byte[] shape = good.clone();
        ByteBuffer.wrap(shape).putInt(24, 6);
        refused(sealed(shape), "inconsistent: 20 switches listed for 6 groups of 4 routers");
        byte[] nan = good.clone();
        ByteBuffer.wrap(nan).putFloat(40 + 12 * 20 + 8 + 8 + 4 * 5, Float.NaN);
        refused(sealed(nan), "inconsistent: the value at row 1, column 1 of switch 0x");
        byte[] port = good.clone();
        ByteBuffer.wrap(port).putShort(40 + 12 * 20 + 8, (short) 9);
        refused(sealed(port), "is port 9, not one of its ports 1..5");
        byte[] rows = good.clone();
        ByteBuffer.wrap(rows).putInt(40 + 12 * 20, -1);
        refused(sealed(rows), "rows is 4294967295, out of range");
    }

    @Test
    void aSnapshotOfAnotherFabricOrOtherTablesIsAMismatchSayingWhat() throws Exception {
        QTableSnapshot s = snapshot(3);
        QTableSnapshotException e = assertThrows(QTableSnapshotException.class,
                () -> s.checkFits(routed("dragonfly:p=1,a=2,h=1", DragonflyAlgorithm.Q_ADAPTIVE), "adv1.qts"));
        assertEquals(QTableSnapshotException.Kind.MISMATCH, e.kind());
        assertEquals("adv1.qts: a snapshot of another fabric: it is of a dragonfly of 5 groups of 4 routers with 1 host each, this fabric "
                + "is 3 groups of 2 routers with 1 host each", e.getMessage());

        // the same shape, one switch replaced by another (another GUID)
        QTableSnapshot.Fingerprint f = s.fabric();
        long[] guids = f.guids();
        long was = guids[3];
        guids[3] = 0x1234;
        QTableSnapshot other = new QTableSnapshot(0, new QTableSnapshot.Fingerprint(5, 4, 1, guids, f.ports()), tables(s));
        e = assertThrows(QTableSnapshotException.class, () -> other.checkFits(routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE), "x.qts"));
        assertEquals("x.qts: a snapshot of another fabric: 1 of its 20 switches are not this fabric's (switch 3 is 0x0000000000001234 in it, "
                + String.format("0x%016x", was) + " here)", e.getMessage());

        // the same fabric, a table whose columns are other ports
        List<QTableSnapshot.Table> tables = tables(s);
        QTableSnapshot.Table t0 = tables.get(0);
        int[] swapped = t0.columnPorts();
        int p = swapped[0];
        swapped[0] = swapped[1];
        swapped[1] = p;
        tables.set(0, new QTableSnapshot.Table(t0.rows(), swapped, t0.values()));
        QTableSnapshot columns = new QTableSnapshot(0, f, tables);
        e = assertThrows(QTableSnapshotException.class, () -> columns.checkFits(routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE), "x.qts"));
        assertTrue(e.getMessage().startsWith("x.qts: the Q-table of switch " + String.format("0x%016x", guids[0]) + " is 5 rows x 4 columns"),
                e.getMessage());

        // a fabric routed by an algorithm without a Q-table
        e = assertThrows(QTableSnapshotException.class, () -> s.checkFits(routed(SPEC, DragonflyAlgorithm.MIN), "x.qts"));
        assertTrue(e.getMessage().endsWith("runs df-min, which learns no Q-table"), e.getMessage());
    }

    @Test
    void valuesThatDoNotFitTheirTablesAreRefusedWhenTheSnapshotIsMade() throws Exception {
        DragonflyTables t = routed(SPEC, DragonflyAlgorithm.Q_ADAPTIVE);
        List<float[]> values = learnt(t, 1);
        values.set(2, new float[3]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> QTableSnapshot.of(t, values, 0));
        assertEquals("3 values for 5 rows x 4 columns", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> QTableSnapshot.of(routed(SPEC, DragonflyAlgorithm.MIN), learnt(t, 1), 0));
    }

    private static List<QTableSnapshot.Table> tables(QTableSnapshot s) {
        List<QTableSnapshot.Table> out = new ArrayList<>();
        for (int i = 0; i < s.fabric().switches(); i++) {
            out.add(s.table(i));
        }
        return out;
    }

    private static void refused(byte[] bytes, String problem) {
        QTableSnapshotException e = assertThrows(QTableSnapshotException.class, () -> QTableSnapshot.read(bytes, "qtables/x.qts"));
        assertEquals(QTableSnapshotException.Kind.CORRUPT, e.kind());
        assertEquals("qtables/x.qts", e.source());
        assertTrue(e.getMessage().startsWith("qtables/x.qts: "), e.getMessage());
        assertTrue(e.problem().contains(problem), "'" + problem + "' in: " + e.getMessage());
    }

    /** {@code bytes} with its length field and checksum made to match its contents: what a forger would write. */
    static byte[] sealed(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length >= 16) {
            b.putLong(8, bytes.length);
        }
        if (bytes.length >= 4) {
            b.putInt(bytes.length - 4, (int) crc32(bytes, bytes.length - 4));
        }
        return bytes;
    }

    /** CRC-32 (ISO-HDLC: reflected, polynomial 0xEDB88320, initial and final XOR all ones), bit by bit. */
    static long crc32(byte[] bytes, int length) {
        int crc = 0xFFFF_FFFF;
        for (int i = 0; i < length; i++) {
            crc ^= bytes[i] & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc >>> 1) ^ ((crc & 1) != 0 ? 0xEDB8_8320 : 0);
            }
        }
        return ~crc & 0xFFFF_FFFFL;
    }
}
