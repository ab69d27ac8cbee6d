package org.fabriclab.manager;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.manager.sweep.HeavySweep;
import org.fabriclab.manager.sweep.SweepException;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetQTableRequest;
import org.fabriclab.proto.v1.QTable;
import org.fabriclab.proto.v1.QTableColumn;
import org.fabriclab.proto.v1.QTableSnapshotInfo;
import org.fabriclab.proto.v1.QTableSnapshotList;
import org.fabriclab.proto.v1.ReseedQTablesResponse;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.dragonfly.QSeeds;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.format.QTableSnapshot;
import org.fabriclab.routing.format.QTableSnapshotException;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Q-adaptive's tables as state the manager keeps (issue 17): a switch's table read back from the
 * switch beside its seed; snapshots of every switch's table, files of the routing-engines format
 * {@link QTableSnapshot} in {@code qtables/} of the state directory ({@code NAME.qts}); a snapshot
 * restored, or every table reseeded by a policy, through {@link HeavySweep#restartLearning}: the
 * versioned table write, on every switch or none.
 *
 * <p>Errors are the admin contract's status codes with a description (admin.proto): a bad name,
 * switch, row or policy INVALID_ARGUMENT; no snapshot of that name NOT_FOUND; a name taken
 * ALREADY_EXISTS; a fabric not routed, or not by Q-adaptive, a snapshot that is corrupt or of
 * another fabric, a switch that refused a write FAILED_PRECONDITION; a switch that did not answer
 * a read UNAVAILABLE. A refused call changes nothing (a write a switch refused is put back on the
 * others).
 *
 * <p>Thread-safety: reads and listings run on the caller's thread, on the manager's snapshot;
 * saves, restores and reseeds on the manager's sweep thread, one at a time and never during a
 * sweep, whose push they would otherwise race.
 */
public final class QTables {
    private static final Logger LOG = LoggerFactory.getLogger(QTables.class);
    /** The snapshots' directory under the state directory, and their files' suffix. */
    static final String DIRECTORY = "qtables";
    static final String SUFFIX = ".qts";
    private static final Pattern NAME = QSeeds.SNAPSHOT_NAME;
    /** Snapshots listed at most. */
    static final int MAX_LISTED = 1000;

    private final FabricManager manager;
    private final FanOut fanOut;
    private final HeavySweep sweep;
    /** {@code qtables} in the state directory, or null: a manager without one keeps no snapshots. */
    private final Path dir;

    QTables(FabricManager manager, FanOut fanOut, HeavySweep sweep, Path stateDir) {
        this.manager = manager;
        this.fanOut = fanOut;
        this.sweep = sweep;
        this.dir = stateDir == null ? null : stateDir.resolve(DIRECTORY);
        if (dir != null) {
            sweep.snapshotSeeds(this::seedFrom);
        }
    }

    /**
     * The engine parameter {@code qtable_seed}'s snapshot, if it names one ({@code snapshot:NAME}),
     * is a snapshot file in {@code stateDir}'s {@code qtables/} that reads and checks (whether it
     * fits the fabric is known after discovery: the sweep says).
     *
     * @throws IllegalArgumentException saying what is wrong and what to do
     */
    static void checkSeedSnapshot(Path stateDir, String qtableSeed) {
        String name = QSeeds.snapshotName(qtableSeed);
        if (name == null) {
            return;
        }
        Path file = stateDir.resolve(DIRECTORY).resolve(name + SUFFIX);
        String option = "--engine-param " + HeavySweep.QTABLE_SEED + "=" + QSeeds.SNAPSHOT + name + ": ";
        try {
            QTableSnapshot.read(file, name + SUFFIX);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(option + "there is no snapshot of that name (" + file + "); fabricctl qtable snapshot save "
                    + name + " keeps one from a running daemon with this --state-dir, or copy a file an emulator run saved "
                    + "(--save-qtables) there", e);
        } catch (QTableSnapshotException e) {
            throw new IllegalArgumentException(option + "snapshot " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + "cannot read " + file + " (" + e + ")", e);
        }
    }

    /** {@code t} with stored snapshot {@code name}'s values as seeds: the sweeps' {@code qtable_seed=snapshot:NAME}. */
    private DragonflyTables seedFrom(String name, DragonflyTables t) throws IOException, QTableSnapshotException {
        return QTableSnapshot.read(dir.resolve(name + SUFFIX), name + SUFFIX).seed(t, name + SUFFIX);
    }

    /** The routed fabric and its Q-adaptive routing, as the last sweep left them. */
    private record Routed(Discovery.Result discovered, HeavySweep.Outcome outcome, DragonflyTables tables) {
        Fabric fabric() {
            return outcome.fabric();
        }

        DiscoveredNode node(int s) {
            return discovered.byGuid().get(fabric().nodeGuid(fabric().switchNode(s)));
        }

        String name(int s) {
            return fabric().name(fabric().switchNode(s));
        }
    }

    /** The fabric as routed, if routed by Q-adaptive; FAILED_PRECONDITION otherwise. */
    private Routed routed() {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.outcome() == null || s.discovered() == null) {
            throw refused(Status.FAILED_PRECONDITION, "the fabric has not been routed yet; wait for the first heavy sweep");
        }
        DragonflyTables t = s.outcome().tables().dragonfly();
        if (t == null || t.algorithm() != DragonflyAlgorithm.Q_ADAPTIVE) {
            throw refused(Status.FAILED_PRECONDITION, "the fabric is routed by " + s.outcome().tables().engine() + ", which keeps no "
                    + "Q-tables; they are q-adaptive's (fabricctl engine set q-adaptive)");
        }
        return new Routed(s.discovered(), s.outcome(), t);
    }

    /** {@link #routed()}, and the last sweep succeeded on the fabric it routed: what a write needs (sweep thread). */
    private Routed routedForWrite() {
        Routed r = routed();
        FabricManager.Snapshot s = manager.snapshot();
        if (s.state() != FabricManager.State.UP || r.discovered().fabric() != r.fabric()) {
            throw refused(Status.FAILED_PRECONDITION, "the manager is " + s.state() + (s.lastError().isEmpty() ? "" : " (" + s.lastError()
                    + ")") + "; Q-tables are written once a sweep has succeeded");
        }
        return r;
    }

    /** A switch's Q-table as the switch holds it, rows as {@code request} asks, beside its seed, with its learning counters. */
    public QTable read(GetQTableRequest request) {
        Routed r = routed();
        int s = switchOf(r.fabric(), request.getSwitch());
        DragonflySwitch ds = r.tables().of(s);
        long first;
        long count;
        if (request.hasRow()) {
            if (request.getFirstRow() != 0 || request.getRowCount() != 0) {
                throw refused(Status.INVALID_ARGUMENT, "give a row (group and slot) or a range of rows, not both");
            }
            long group = Integer.toUnsignedLong(request.getRow().getGroup());
            long slot = Integer.toUnsignedLong(request.getRow().getSlot());
            if (group >= ds.groups() || slot >= ds.hostsPerRouter()) {
                throw refused(Status.INVALID_ARGUMENT, "row " + group + "," + slot + " is beyond " + r.name(s) + "'s Q-table: groups 0.."
                        + (ds.groups() - 1) + ", host slots 0.." + (ds.hostsPerRouter() - 1));
            }
            first = ds.row((int) group, (int) slot);
            count = 1;
        } else {
            first = Integer.toUnsignedLong(request.getFirstRow());
            count = request.getRowCount() == 0 ? ds.rows() - first : Integer.toUnsignedLong(request.getRowCount());
            if (first >= ds.rows() || first + count > ds.rows()) {
                throw refused(Status.INVALID_ARGUMENT, (first >= ds.rows() ? "row " + first + " is" : "rows " + first + " to "
                        + (first + count - 1) + " are") + " beyond " + r.name(s) + "'s Q-table of " + ds.rows() + " rows (0.."
                        + (ds.rows() - 1) + ")");
            }
        }
        DragonflyState st;
        try {
            st = fanOut.stub(r.node(s).endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.newBuilder().setFirstRow((int) first)
                    .setRowCount((int) count).build());
        } catch (StatusRuntimeException e) {
            throw refused(Status.UNAVAILABLE, "switch " + r.name(s) + " did not answer the Q-table read: " + FanOut.describe(e));
        }
        requireRouting(r, s, st);
        QTable.Builder b = QTable.newBuilder().setSwitchName(r.name(s)).setGuid(r.fabric().nodeGuid(r.fabric().switchNode(s)))
                .setGroup(ds.group()).setIndex(ds.index()).setGroups(ds.groups()).setHostsPerRouter(ds.hostsPerRouter()).setRows(ds.rows())
                .setFirstRow((int) first).addAllQValues(st.getQValuesList()).addAllQSeed(st.getQSeedList())
                .setQUpdates(st.getQUpdates()).setQExplorations(st.getQExplorations()).setMinimalDecisions(st.getMinimalDecisions())
                .setNonminimalDecisions(st.getNonminimalDecisions());
        for (int c = 0; c < ds.columns(); c++) {
            int p = ds.portOfColumn(c);
            b.addColumns(QTableColumn.newBuilder().setPort(p).setKind(ds.kind(p) == DragonflySwitch.LOCAL ? "local" : "global")
                    .setPeer(ds.peer(p)));
        }
        return b.build();
    }

    /** Switch {@code s}'s answer is of the Q-adaptive routing this manager wrote (same shape); FAILED_PRECONDITION otherwise. */
    private static void requireRouting(Routed r, int s, DragonflyState st) {
        DragonflySwitch ds = r.tables().of(s);
        if (st.getRouting().getAlgorithmValue() != DragonflyAlgorithm.Q_ADAPTIVE.code() || st.getRows() != ds.rows()
                || st.getColumns() != ds.columns()) {
            throw refused(Status.FAILED_PRECONDITION, "switch " + r.name(s) + " holds another routing than this manager's last sweep "
                    + "wrote (" + st.getRouting().getAlgorithm() + ", " + st.getRows() + " x " + st.getColumns() + " Q-table); a sweep "
                    + "takes it back (fabricctl sweep)");
        }
    }

    /** The switch named {@code given}, or with that GUID; INVALID_ARGUMENT for none. */
    private static int switchOf(Fabric f, String given) {
        if (given.isBlank()) {
            throw refused(Status.INVALID_ARGUMENT, "which switch? give its name or GUID");
        }
        Integer node = f.nodeByName(given).orElse(null);
        if (node == null && given.strip().matches("(0[xX])?[0-9a-fA-F]{1,16}")) {
            node = f.nodeByGuid(Guids.parse(given)).orElse(null);
        }
        if (node == null || !f.isSwitch(node)) {
            throw refused(Status.INVALID_ARGUMENT, AdminService.noSuch(f, given, "switch", " or with that GUID"));
        }
        return f.switchIndex(node);
    }

    /**
     * Reads every switch's Q-table and saves them as snapshot {@code name} (replacing one of that
     * name only if {@code replace}), on the sweep thread.
     */
    public CompletableFuture<QTableSnapshotInfo> save(String name, boolean replace) {
        Path file = file(name);
        return manager.onSweepThread(() -> {
            Routed r = routedForWrite();
            if (Files.exists(file) && !replace) {
                throw refused(Status.ALREADY_EXISTS, "a snapshot named " + name + " exists (" + file + "); give another name, or replace "
                        + "it (fabricctl qtable snapshot save " + name + " --replace)");
            }
            QTableSnapshot snap = QTableSnapshot.of(r.tables(), readAll(r), System.currentTimeMillis());
            try {
                Files.createDirectories(dir);
                snap.write(file);
            } catch (IOException e) {
                throw refused(Status.FAILED_PRECONDITION, "cannot write " + file + " (" + e + "); nothing was saved");
            }
            LOG.info("Q-table snapshot {} saved: {} switches, {} bytes in {}", name, snap.fabric().switches(), snap.length(), file);
            return info(name, file, snap.length(), snap);
        });
    }

    /** Every switch's whole Q-table as it holds it now, in switch order; UNAVAILABLE naming those that did not answer. */
    private List<float[]> readAll(Routed r) throws InterruptedException {
        List<Integer> switches = new ArrayList<>();
        for (int s = 0; s < r.fabric().switchCount(); s++) {
            switches.add(s);
        }
        List<float[]> out = new ArrayList<>();
        List<String> silent = new ArrayList<>();
        for (FanOut.Result<Integer, DragonflyState> x : fanOut.run(switches, FanOut.Retry.IDEMPOTENT,
                s -> fanOut.stub(r.node(s).endpoint()).getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance()))) {
            if (!x.ok()) {
                silent.add(r.name(x.item()) + ": " + FanOut.describe(x.failure()));
                continue;
            }
            requireRouting(r, x.item(), x.value());
            float[] q = new float[x.value().getQValuesCount()];
            for (int i = 0; i < q.length; i++) {
                q[i] = x.value().getQValues(i);
            }
            out.add(q);
        }
        if (!silent.isEmpty()) {
            throw refused(Status.UNAVAILABLE, silent.size() + " switch(es) did not answer the Q-table read, so nothing was saved: "
                    + String.join("; ", silent.subList(0, Math.min(3, silent.size()))));
        }
        return out;
    }

    /** The snapshots in the state directory, by name, each with whether it fits the fabric as routed now. */
    public QTableSnapshotList list() {
        QTableSnapshotList.Builder b = QTableSnapshotList.newBuilder().setDirectory(dir == null ? "" : dir.toString());
        if (dir == null || !Files.isDirectory(dir)) {
            return b.build();
        }
        TreeMap<String, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : ds) {
                files.put(p.getFileName().toString(), p);
            }
        } catch (IOException e) {
            throw refused(Status.FAILED_PRECONDITION, "cannot list " + dir + " (" + e + ")");
        }
        Routed r;
        String unroutable = null;
        try {
            r = routed();
        } catch (StatusRuntimeException e) {
            r = null;
            unroutable = e.getStatus().getDescription();
        }
        int listed = 0;
        for (Map.Entry<String, Path> e : files.entrySet()) {
            if (listed++ == MAX_LISTED) {
                b.setMore(files.size() - MAX_LISTED);
                break;
            }
            String name = e.getKey().substring(0, e.getKey().length() - SUFFIX.length());
            Path file = e.getValue();
            QTableSnapshotInfo.Builder i = QTableSnapshotInfo.newBuilder().setName(name).setFile(file.toString());
            try {
                i.setBytes(Files.size(file));
                if (!NAME.matcher(name).matches()) {
                    b.addSnapshots(i.setProblem("its name is no snapshot name (" + nameRule() + "); rename the file to restore it"));
                    continue;
                }
                QTableSnapshot snap = load(file, name);
                i.setCreatedEpochMillis(snap.createdMillis()).setSwitches(snap.fabric().switches());
                if (r == null) {
                    i.setProblem(unroutable);
                } else {
                    snap.checkFits(r.tables(), name + SUFFIX);
                    i.setFits(true);
                }
            } catch (QTableSnapshotException x) {
                i.setProblem(x.problem());
            } catch (StatusRuntimeException x) {
                i.setProblem(x.getStatus().getDescription());
            } catch (IOException x) {
                i.setProblem("cannot read it (" + x + ")");
            }
            b.addSnapshots(i);
        }
        return b.build();
    }

    /**
     * Puts snapshot {@code name}'s values into every switch's Q-table, as the seed their learning
     * restarts from, on every switch or none; on the sweep thread.
     */
    public CompletableFuture<QTableSnapshotInfo> restore(String name) {
        Path file = file(name);
        return manager.onSweepThread(() -> {
            Routed r = routedForWrite();
            QTableSnapshot snap;
            DragonflyTables seeded;
            try {
                snap = load(file, name);
                seeded = snap.seed(r.tables(), name + SUFFIX);
            } catch (QTableSnapshotException e) {
                throw refused(Status.FAILED_PRECONDITION, "snapshot " + e.getMessage() + "; nothing was written");
            }
            DragonflySwitch[] want = new DragonflySwitch[r.fabric().switchCount()];
            for (int s = 0; s < want.length; s++) {
                want[s] = seeded.of(s);
            }
            write(r, want, "restoring snapshot " + name);
            LOG.info("Q-table snapshot {} restored on {} switches", name, want.length);
            return info(name, file, Files.size(file), snap);
        });
    }

    /**
     * Restarts every switch's learning from the seed of {@code policy} (blank: the engine's {@code
     * qtable_seed}), on every switch or none; on the sweep thread. A policy {@code snapshot:NAME}
     * is {@link #restore} of that snapshot.
     */
    public CompletableFuture<ReseedQTablesResponse> reseed(String policy) {
        QSeeds.Policy p;
        String snapshot;
        try {
            String given = policy == null || policy.isBlank() ? manager.engineParams().get(HeavySweep.QTABLE_SEED) : policy;
            snapshot = QSeeds.snapshotName(given);
            p = policy == null || policy.isBlank() || snapshot != null ? null : QSeeds.Policy.of(policy);
        } catch (IllegalArgumentException e) {
            throw refused(Status.INVALID_ARGUMENT, Excerpt.message(e.getMessage(), "; nothing was changed"));
        }
        if (snapshot != null) { // the seed of a stored snapshot: its restore
            return restore(snapshot).thenApply(i -> ReseedQTablesResponse.newBuilder().setPolicy(QSeeds.SNAPSHOT + snapshot)
                    .setSwitches(i.getSwitches()).build());
        }
        return manager.onSweepThread(() -> {
            Routed r = routedForWrite();
            Map<String, String> params = new HashMap<>(manager.engineParams());
            if (p != null) {
                params.put(HeavySweep.QTABLE_SEED, p.key());
            }
            String used = params.getOrDefault(HeavySweep.QTABLE_SEED, QSeeds.Policy.MINIMAL.key());
            DragonflyTables t = HeavySweep.route(r.fabric(), r.outcome().lids(), EngineChain.parse(r.outcome().tables().engine()),
                    r.outcome().jobNodes(), params).tables().dragonfly();
            if (t == null || t.algorithm() != DragonflyAlgorithm.Q_ADAPTIVE) {
                throw refused(Status.FAILED_PRECONDITION, r.outcome().tables().engine() + " no longer routes the fabric as it did; "
                        + "sweep first");
            }
            DragonflySwitch[] want = new DragonflySwitch[r.fabric().switchCount()];
            for (int s = 0; s < want.length; s++) {
                want[s] = t.of(s);
            }
            int n = write(r, want, "reseeding with " + used);
            LOG.info("Q-tables of {} switches reseeded by policy {}", n, used);
            return ReseedQTablesResponse.newBuilder().setPolicy(used).setSwitches(n).build();
        });
    }

    /** {@link HeavySweep#restartLearning}; its refusal as FAILED_PRECONDITION, saying what was being done. */
    private int write(Routed r, DragonflySwitch[] want, String what) throws InterruptedException {
        try {
            return sweep.restartLearning(r.discovered(), want);
        } catch (SweepException e) {
            LOG.warn("{} failed: {}", what, e.getMessage());
            throw refused(Status.FAILED_PRECONDITION, what + ": " + e.getMessage());
        }
    }

    /** Snapshot {@code name}'s file; INVALID_ARGUMENT for a bad name, FAILED_PRECONDITION without a state directory. */
    private Path file(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw refused(Status.INVALID_ARGUMENT, "snapshot name " + Excerpt.quote(name == null ? "" : name) + " is not " + nameRule());
        }
        if (dir == null) {
            throw refused(Status.FAILED_PRECONDITION, "this manager has no state directory (--state-dir) to keep snapshots in");
        }
        return dir.resolve(name + SUFFIX);
    }

    private static String nameRule() {
        return QSeeds.SNAPSHOT_NAME_RULE;
    }

    /** Snapshot file {@code file}, read and checked; NOT_FOUND if there is none. */
    private static QTableSnapshot load(Path file, String name) throws IOException {
        try {
            return QTableSnapshot.read(file, name + SUFFIX);
        } catch (NoSuchFileException e) {
            throw refused(Status.NOT_FOUND, "no snapshot named " + name + " (" + file + "); fabricctl qtable snapshot list shows those kept");
        }
    }

    /** What a save or restore says of snapshot {@code snap}, which fits the fabric. */
    private static QTableSnapshotInfo info(String name, Path file, long bytes, QTableSnapshot snap) {
        return QTableSnapshotInfo.newBuilder().setName(name).setFile(file.toString()).setBytes(bytes)
                .setCreatedEpochMillis(snap.createdMillis()).setSwitches(snap.fabric().switches()).setFits(true).build();
    }

    private static StatusRuntimeException refused(Status status, String why) {
        return status.withDescription(why).asRuntimeException();
    }
}
