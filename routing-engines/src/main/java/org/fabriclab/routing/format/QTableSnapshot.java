package org.fabriclab.routing.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32;
import org.fabriclab.routing.dragonfly.DragonflyFabric;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;

/**
 * What a Dragonfly's switches learnt, as a file: every router's Q-adaptive table (values in ns)
 * with the fabric it was learnt on, so that a lab's learnt state outlives the processes and goes
 * back only where it fits. Binary, big-endian, version {@value #VERSION}:
 *
 * <pre>
 * offset  bytes         field
 *      0  4             magic "FLQT" (0x46 0x4C 0x51 0x54)
 *      4  2             format version (1)
 *      6  2             reserved, 0
 *      8  8             the file's length in bytes, checksum included
 *     16  8             created, milliseconds since the epoch (UTC)
 *     24  4             groups                                     \
 *     28  4             routers a group                             | the fabric's
 *     32  4             hosts (slots) a router                      | fingerprint
 *     36  4             switches N (= groups x routers)             |
 *     40  N x 12        per switch, in the fabric's switch order:   |
 *                         GUID (8), port count (2), reserved 0 (2) /
 *      .  per switch, in the same order, its table:
 *           4             rows R (= groups x hosts a router)
 *           2             columns C (its non-host ports)
 *           2             reserved, 0
 *           C x 2         the port of each column (local ports first, then global, as the switch orders them)
 *           R x C x 4     the values, row by row, IEEE 754 single precision, ns
 * length-4  4             CRC-32 (ISO-HDLC, as java.util.zip.CRC32 and zlib's crc32) of every byte before it
 * </pre>
 *
 * A row is (destination group, source host slot): row = group x hosts a router + slot. The
 * fingerprint is what a table means: the same numbers on other switches, or in another order, are
 * another fabric's. {@link #read} refuses, with the file and the reason and never with another
 * exception, anything that is not such a file: too short, another magic, another version, cut
 * short or longer than its header says, a checksum that does not match, or contents that contradict
 * themselves (counts out of range, a value that is not a finite number). {@link #checkFits} refuses
 * a sound snapshot of another fabric or of tables of another shape. Immutable; {@link #read(Path, String)} and
 * {@link #write(Path)} read and write whole files, the caller says where.
 */
public final class QTableSnapshot {
    /** "FLQT". */
    public static final int MAGIC = 0x464C5154;
    /** The format version this class writes and reads. */
    public static final int VERSION = 1;
    /** The fixed header: magic to switch count. */
    static final int HEADER = 40;
    /** One switch's fingerprint entry. */
    static final int FINGERPRINT_ENTRY = 12;
    /** A table's fixed part: rows, columns, reserved. */
    static final int TABLE_HEADER = 8;
    static final int CHECKSUM = 4;
    /**
     * The largest snapshot read: far above the 1,056-node system's 1.5 MB and the 2,550-node
     * system's 7.3 MB (docs/benchmarks.md); a caller checks a file's size before reading it.
     */
    public static final long MAX_BYTES = 256L << 20;

    /**
     * The fabric a snapshot was learnt on: the Dragonfly's shape and its switches' GUIDs and port
     * counts in the fabric's switch order (the manager numbers switches in GUID order).
     */
    public record Fingerprint(int groups, int routers, int hostsPerRouter, long[] guids, int[] ports) {
        public Fingerprint {
            guids = guids.clone();
            ports = ports.clone();
        }

        /** The fingerprint of {@code df}. */
        public static Fingerprint of(DragonflyFabric df) {
            Fabric f = df.fabric();
            long[] guids = new long[f.switchCount()];
            int[] ports = new int[f.switchCount()];
            for (int s = 0; s < guids.length; s++) {
                guids[s] = f.nodeGuid(f.switchNode(s));
                ports[s] = f.portCount(f.switchNode(s));
            }
            return new Fingerprint(df.groups(), df.routers(), df.hostsPerRouter(), guids, ports);
        }

        public int switches() {
            return guids.length;
        }

        /** A copy of the GUIDs. */
        @Override
        public long[] guids() {
            return guids.clone();
        }

        /** A copy of the port counts. */
        @Override
        public int[] ports() {
            return ports.clone();
        }

        /** How this fabric differs from {@code here}, the first difference of each kind, for a message; empty if not at all. */
        public List<String> differences(Fingerprint here) {
            List<String> out = new ArrayList<>();
            if (groups != here.groups || routers != here.routers || hostsPerRouter != here.hostsPerRouter) {
                out.add("it is of a dragonfly of " + shape(this) + ", this fabric is " + shape(here));
                return out;
            }
            int moved = 0;
            int first = -1;
            for (int s = 0; s < guids.length; s++) {
                if (guids[s] != here.guids[s]) {
                    moved++;
                    first = first < 0 ? s : first;
                }
            }
            if (moved > 0) {
                out.add(moved + " of its " + guids.length + " switches are not this fabric's (switch " + first + " is "
                        + Guids.format(guids[first]) + " in it, " + Guids.format(here.guids[first]) + " here)");
            }
            for (int s = 0; s < ports.length; s++) {
                if (ports[s] != here.ports[s] && guids[s] == here.guids[s]) {
                    out.add("switch " + Guids.format(guids[s]) + " has " + ports[s] + " ports in it, " + here.ports[s] + " here");
                    break;
                }
            }
            return out;
        }

        private static String shape(Fingerprint f) {
            return f.groups + " groups of " + f.routers + " routers with " + f.hostsPerRouter + " host" + (f.hostsPerRouter == 1 ? "" : "s")
                    + " each";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fingerprint f && f.groups == groups && f.routers == routers && f.hostsPerRouter == hostsPerRouter
                    && Arrays.equals(f.guids, guids) && Arrays.equals(f.ports, ports);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(guids) + groups;
        }

        @Override
        public String toString() {
            return shape(this) + ", " + guids.length + " switches";
        }
    }

    /** One switch's Q-table: the port of each column, and rows x columns values (ns), row by row. */
    public record Table(int rows, int[] columnPorts, float[] values) {
        public Table {
            columnPorts = columnPorts.clone();
            values = values.clone();
            if (values.length != (long) rows * columnPorts.length) {
                throw new IllegalArgumentException(values.length + " values for " + rows + " rows x " + columnPorts.length + " columns");
            }
        }

        /** Router {@code r}'s columns with {@code values} (rows x columns). */
        public static Table of(DragonflySwitch r, float[] values) {
            int[] ports = new int[r.columns()];
            for (int c = 0; c < ports.length; c++) {
                ports[c] = r.portOfColumn(c);
            }
            return new Table(r.rows(), ports, values);
        }

        public int columns() {
            return columnPorts.length;
        }

        /** A copy of the values. */
        @Override
        public float[] values() {
            return values.clone();
        }

        @Override
        public int[] columnPorts() {
            return columnPorts.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Table t && t.rows == rows && Arrays.equals(t.columnPorts, columnPorts) && Arrays.equals(t.values, values);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(values) + rows;
        }

        @Override
        public String toString() {
            return rows + " rows x " + columnPorts.length + " columns (ports " + Arrays.toString(columnPorts) + ")";
        }
    }

    private final long createdMillis;
    private final Fingerprint fabric;
    private final List<Table> tables;

    /**
     * @throws IllegalArgumentException if the tables are not one per switch of the fingerprint,
     *                                  each of its rows, or a value is not a finite number
     */
    public QTableSnapshot(long createdMillis, Fingerprint fabric, List<Table> tables) {
        this.createdMillis = createdMillis;
        this.fabric = fabric;
        this.tables = List.copyOf(tables);
        String why = problem(fabric, this.tables);
        if (why != null) {
            throw new IllegalArgumentException(why);
        }
    }

    /**
     * The snapshot of Q-adaptive routing {@code t} holding, for switch number {@code s}, the values
     * {@code values.get(s)} (rows x columns, as {@code GetDragonflyRouting} returns them).
     *
     * @throws IllegalArgumentException if a switch's values do not fit its table, or the routing is not Q-adaptive
     */
    public static QTableSnapshot of(DragonflyTables t, List<float[]> values, long createdMillis) {
        int n = t.dragonfly().fabric().switchCount();
        if (values.size() != n) {
            throw new IllegalArgumentException(values.size() + " tables for " + n + " switches");
        }
        List<Table> tables = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            DragonflySwitch r = t.of(s);
            if (r.qSeed() == null) {
                throw new IllegalArgumentException(r + " learns no Q-table");
            }
            tables.add(Table.of(r, values.get(s)));
        }
        return new QTableSnapshot(createdMillis, Fingerprint.of(t.dragonfly()), tables);
    }

    /** What is inconsistent between the fingerprint and the tables, or null. */
    private static String problem(Fingerprint f, List<Table> tables) {
        if (f.groups() < 2 || f.groups() > DragonflyHeader.MAX_GROUPS || f.routers() < 1 || f.routers() > DragonflyHeader.MAX_ROUTERS
                || f.hostsPerRouter() < 0 || f.hostsPerRouter() > 255) {
            return "a dragonfly of " + f.groups() + " groups of " + f.routers() + " routers with " + f.hostsPerRouter()
                    + " hosts each is out of range (2.." + DragonflyHeader.MAX_GROUPS + " groups, 1.." + DragonflyHeader.MAX_ROUTERS
                    + " routers, 0..255 hosts)";
        }
        if (f.switches() != f.groups() * f.routers()) {
            return f.switches() + " switches listed for " + f.groups() + " groups of " + f.routers() + " routers";
        }
        if (tables.size() != f.switches()) {
            return tables.size() + " tables for " + f.switches() + " switches";
        }
        for (int s = 0; s < tables.size(); s++) {
            Table t = tables.get(s);
            if (t.rows() != f.groups() * f.hostsPerRouter()) {
                return "the table of switch " + Guids.format(f.guids[s]) + " has " + t.rows() + " rows, not " + f.groups() + " groups x "
                        + f.hostsPerRouter() + " hosts";
            }
            for (int c = 0; c < t.columns(); c++) {
                int p = t.columnPorts[c];
                if (p < 1 || p > f.ports[s]) {
                    return "column " + c + " of switch " + Guids.format(f.guids[s]) + " is port " + p + ", not one of its ports 1.."
                            + f.ports[s];
                }
            }
            for (int i = 0; i < t.values.length; i++) {
                if (!Float.isFinite(t.values[i])) {
                    return "the value at row " + i / t.columns() + ", column " + i % t.columns() + " of switch " + Guids.format(f.guids[s])
                            + " is " + t.values[i] + ", not a time in ns";
                }
            }
        }
        return null;
    }

    public long createdMillis() {
        return createdMillis;
    }

    public Fingerprint fabric() {
        return fabric;
    }

    /** Switch number {@code s}'s table. */
    public Table table(int s) {
        return tables.get(s);
    }

    /** The file's length: header, fingerprint, tables, checksum. */
    public int length() {
        long n = HEADER + (long) FINGERPRINT_ENTRY * fabric.switches() + CHECKSUM;
        for (Table t : tables) {
            n += TABLE_HEADER + 2L * t.columns() + 4L * t.values.length;
        }
        if (n > MAX_BYTES) {
            throw new IllegalArgumentException("a snapshot of " + n + " bytes is beyond the format's " + MAX_BYTES);
        }
        return (int) n;
    }

    /** The snapshot as the file holds it. */
    public byte[] write() {
        ByteBuffer b = ByteBuffer.allocate(length());
        b.putInt(MAGIC).putShort((short) VERSION).putShort((short) 0).putLong(b.capacity()).putLong(createdMillis);
        b.putInt(fabric.groups()).putInt(fabric.routers()).putInt(fabric.hostsPerRouter()).putInt(fabric.switches());
        for (int s = 0; s < fabric.switches(); s++) {
            b.putLong(fabric.guids[s]).putShort((short) fabric.ports[s]).putShort((short) 0);
        }
        for (Table t : tables) {
            b.putInt(t.rows()).putShort((short) t.columns()).putShort((short) 0);
            for (int p : t.columnPorts) {
                b.putShort((short) p);
            }
            for (float v : t.values) {
                b.putFloat(v);
            }
        }
        b.putInt((int) crc(b.array(), b.position()));
        return b.array();
    }

    /**
     * Reads a snapshot from the bytes of file {@code source}.
     *
     * @throws QTableSnapshotException {@link QTableSnapshotException.Kind#CORRUPT}, with the file and
     *                                 what is wrong, for anything that is not a sound snapshot of this version
     */
    public static QTableSnapshot read(byte[] bytes, String source) throws QTableSnapshotException {
        Cursor in = new Cursor(bytes, source);
        if (bytes.length >= 4 && in.buffer.getInt(0) != MAGIC) {
            throw in.corrupt("not a Q-table snapshot: it starts with " + hex(bytes, 4) + ", not \"FLQT\"");
        }
        if (bytes.length < HEADER + CHECKSUM) {
            throw in.corrupt("cut short: " + bytes.length + " bytes, less than a snapshot's " + (HEADER + CHECKSUM)
                    + "-byte header and checksum");
        }
        int version = in.buffer.getShort(4) & 0xFFFF;
        if (version != VERSION) {
            throw in.corrupt("format version " + version + ", and this fabriclab reads version " + VERSION
                    + (version > VERSION ? " (written by a newer one)" : ""));
        }
        long declared = in.buffer.getLong(8);
        if (declared != bytes.length) {
            throw in.corrupt(Long.compareUnsigned(declared, bytes.length) > 0
                    ? "cut short: " + bytes.length + " bytes, the header says " + Long.toUnsignedString(declared)
                    : Long.toUnsignedString(declared) + " bytes by its header, but " + bytes.length + ": data after the end");
        }
        long stored = in.buffer.getInt(bytes.length - CHECKSUM) & 0xFFFF_FFFFL;
        long computed = crc(bytes, bytes.length - CHECKSUM);
        if (stored != computed) {
            throw in.corrupt(String.format(Locale.ROOT, "damaged: its CRC-32 is 0x%08x, its contents' 0x%08x (changed or corrupted "
                    + "since it was written)", stored, computed));
        }
        in.reserved(6);
        in.at(16);
        long created = in.buffer.getLong();
        int groups = in.int32("groups");
        int routers = in.int32("routers a group");
        int hosts = in.int32("hosts a router");
        int n = in.int32("switches");
        if ((long) n * FINGERPRINT_ENTRY > in.remaining()) {
            throw in.corrupt("it lists " + n + " switches, more than its " + bytes.length + " bytes can hold");
        }
        long[] guids = new long[n];
        int[] ports = new int[n];
        for (int s = 0; s < n; s++) {
            in.need(FINGERPRINT_ENTRY, "switch " + s + "'s fingerprint");
            guids[s] = in.buffer.getLong();
            ports[s] = in.buffer.getShort() & 0xFFFF;
            in.reserved(in.buffer.position());
            in.buffer.getShort();
        }
        List<Table> tables = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            String which = "switch " + Guids.format(guids[s]) + "'s table";
            in.need(TABLE_HEADER, which);
            int rows = in.int32(which + " rows");
            int cols = in.buffer.getShort() & 0xFFFF;
            in.reserved(in.buffer.position());
            in.buffer.getShort();
            long cells = (long) rows * cols;
            in.need(2L * cols + 4L * cells, which + " of " + rows + " rows x " + cols + " columns");
            int[] columnPorts = new int[cols];
            for (int c = 0; c < cols; c++) {
                columnPorts[c] = in.buffer.getShort() & 0xFFFF;
            }
            float[] values = new float[(int) cells];
            in.buffer.asFloatBuffer().get(values);
            in.at(in.buffer.position() + 4 * values.length);
            tables.add(new Table(rows, columnPorts, values));
        }
        if (in.buffer.position() != bytes.length - CHECKSUM) {
            throw in.corrupt((bytes.length - CHECKSUM - in.buffer.position()) + " bytes after the last table, before the checksum");
        }
        String why = problem(new Fingerprint(groups, routers, hosts, guids, ports), tables);
        if (why != null) {
            throw in.corrupt("inconsistent: " + why);
        }
        return new QTableSnapshot(created, new Fingerprint(groups, routers, hosts, guids, ports), tables);
    }

    /**
     * Checks that this snapshot can be installed in Q-adaptive routing {@code t}: the same fabric
     * (shape, switches and their ports) and every switch's table of the same shape (rows, and the
     * same port in each column).
     *
     * @throws QTableSnapshotException {@link QTableSnapshotException.Kind#MISMATCH} saying what differs
     */
    public void checkFits(DragonflyTables t, String source) throws QTableSnapshotException {
        checkFabric(t.dragonfly(), source);
        for (int s = 0; s < fabric.switches(); s++) {
            DragonflySwitch r = t.of(s);
            Table mine = tables.get(s);
            if (r.qSeed() == null) {
                throw new QTableSnapshotException(source, QTableSnapshotException.Kind.MISMATCH, "switch " + Guids.format(fabric.guids[s])
                        + " runs " + r.algorithm().key() + ", which learns no Q-table");
            }
            Table here = Table.of(r, new float[r.rows() * r.columns()]);
            if (mine.rows() != here.rows() || !Arrays.equals(mine.columnPorts, here.columnPorts)) {
                throw new QTableSnapshotException(source, QTableSnapshotException.Kind.MISMATCH, "the Q-table of switch "
                        + Guids.format(fabric.guids[s]) + " is " + here + " here, " + mine + " in the snapshot");
            }
        }
    }

    /**
     * Checks that this snapshot was taken on {@code df} (shape, switches and their ports): the part
     * of {@link #checkFits} that needs the fabric alone, before it is routed.
     *
     * @throws QTableSnapshotException {@link QTableSnapshotException.Kind#MISMATCH} saying what differs
     */
    public void checkFabric(DragonflyFabric df, String source) throws QTableSnapshotException {
        List<String> why = fabric.differences(Fingerprint.of(df));
        if (!why.isEmpty()) {
            throw new QTableSnapshotException(source, QTableSnapshotException.Kind.MISMATCH, "a snapshot of another fabric: "
                    + String.join("; ", why));
        }
    }

    /**
     * Q-adaptive routing {@code t} with every router starting from this snapshot's values instead
     * of its seed: what a restore writes to the switches and what a simulation seeded from a
     * snapshot installs. {@link #checkFits} first.
     *
     * @throws QTableSnapshotException {@link QTableSnapshotException.Kind#MISMATCH} if the snapshot does not fit
     *                                 {@code t}, or holds values a router cannot start from (a negative time)
     */
    public DragonflyTables seed(DragonflyTables t, String source) throws QTableSnapshotException {
        checkFits(t, source);
        DragonflySwitch[] seeded = new DragonflySwitch[fabric.switches()];
        for (int s = 0; s < seeded.length; s++) {
            try {
                seeded[s] = t.of(s).withQSeed(tables.get(s).values());
            } catch (IllegalArgumentException e) {
                throw new QTableSnapshotException(source, QTableSnapshotException.Kind.MISMATCH, "it holds values switch "
                        + Guids.format(fabric.guids[s]) + " cannot start from (" + e.getMessage() + ")");
            }
        }
        return new DragonflyTables(t.dragonfly(), t.algorithm(), seeded);
    }

    /**
     * Reads snapshot file {@code file}, named {@code source} in messages; a file larger than
     * {@link #MAX_BYTES} is refused before it is read.
     *
     * @throws QTableSnapshotException as {@link #read(byte[], String)}, or for a file too large
     * @throws IOException             if the file cannot be read ({@link java.nio.file.NoSuchFileException} if there is none)
     */
    public static QTableSnapshot read(Path file, String source) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new QTableSnapshotException(source, QTableSnapshotException.Kind.CORRUPT, size + " bytes, beyond the " + MAX_BYTES
                    + " of any snapshot");
        }
        return read(Files.readAllBytes(file), source);
    }

    /**
     * Writes this snapshot to {@code file}, whole or not at all: into a temporary file beside it,
     * then moved over it atomically, so that a reader never sees half a snapshot.
     */
    public void write(Path file) throws IOException {
        byte[] bytes = write();
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        try {
            Files.write(tmp, bytes);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** CRC-32 of {@code bytes[0..length)}. */
    private static long crc(byte[] bytes, int length) {
        CRC32 c = new CRC32();
        c.update(bytes, 0, length);
        return c.getValue();
    }

    private static String hex(byte[] bytes, int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(String.format(Locale.ROOT, "%s0x%02x", i == 0 ? "" : " ", bytes[i] & 0xFF));
        }
        return s.toString();
    }

    /** Reading position in a snapshot's bytes, refusing to read past its tables with what it was reading and where. */
    private static final class Cursor {
        final ByteBuffer buffer;
        final String source;
        /** Where the tables end: the checksum. */
        final int end;

        Cursor(byte[] bytes, String source) {
            this.buffer = ByteBuffer.wrap(bytes);
            this.source = source;
            this.end = Math.max(0, bytes.length - CHECKSUM);
        }

        void at(int position) {
            buffer.position(position);
        }

        long remaining() {
            return end - buffer.position();
        }

        /** {@code count} more bytes are there for {@code what}. */
        void need(long count, String what) throws QTableSnapshotException {
            if (count > remaining()) {
                throw corrupt("at byte " + buffer.position() + ": " + what + " needs " + count + " bytes, " + remaining() + " are left");
            }
        }

        /** A count, 0..2^31-1. */
        int int32(String what) throws QTableSnapshotException {
            need(4, what);
            int at = buffer.position();
            int v = buffer.getInt();
            if (v < 0) {
                throw corrupt("at byte " + at + ": " + what + " is " + Integer.toUnsignedString(v) + ", out of range");
            }
            return v;
        }

        /** The reserved 2 bytes at {@code at} are 0 (what a later version puts there, this one cannot read). */
        void reserved(int at) throws QTableSnapshotException {
            int v = buffer.getShort(at) & 0xFFFF;
            if (v != 0) {
                throw corrupt("at byte " + at + ": a reserved field holds " + v + ", not 0");
            }
        }

        QTableSnapshotException corrupt(String problem) {
            return new QTableSnapshotException(source, QTableSnapshotException.Kind.CORRUPT, problem);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QTableSnapshot s && s.createdMillis == createdMillis && s.fabric.equals(fabric) && s.tables.equals(tables);
    }

    @Override
    public int hashCode() {
        return fabric.hashCode() * 31 + tables.hashCode();
    }

    @Override
    public String toString() {
        return "Q-table snapshot of " + fabric + ", created " + createdMillis;
    }
}
