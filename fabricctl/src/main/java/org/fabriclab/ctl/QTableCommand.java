package org.fabriclab.ctl;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.proto.v1.GetQTableRequest;
import org.fabriclab.proto.v1.ListQTableSnapshotsRequest;
import org.fabriclab.proto.v1.QTable;
import org.fabriclab.proto.v1.QTableColumn;
import org.fabriclab.proto.v1.QTableRow;
import org.fabriclab.proto.v1.QTableSnapshotInfo;
import org.fabriclab.proto.v1.QTableSnapshotList;
import org.fabriclab.proto.v1.ReseedQTablesRequest;
import org.fabriclab.proto.v1.ReseedQTablesResponse;
import org.fabriclab.proto.v1.RestoreQTableSnapshotRequest;
import org.fabriclab.proto.v1.SaveQTableSnapshotRequest;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fabricctl qtable}: Q-adaptive's tables through the daemon. {@code qtable SWITCH [--row
 * GROUP,SLOT]} shows a switch's table as the switch holds it, each value beside its seed, with its
 * learning counters; {@code qtable snapshot save|list|restore NAME} keeps every switch's table in
 * the daemon's state directory, lists those kept, and puts one back (on every switch or none);
 * {@code qtable reseed [--policy P]} restarts every switch's learning from a seed. A switch named
 * {@code snapshot} or {@code reseed} is given by its GUID.
 */
@Command(name = "qtable", mixinStandardHelpOptions = true,
        description = {"Q-adaptive's Q-tables through the daemon:",
            "  qtable SWITCH [--row GROUP,SLOT]       a switch's table as it holds it, each value (ns) beside its seed",
            "  qtable snapshot save NAME [--replace]  keep every switch's table in the daemon's state directory",
            "  qtable snapshot list                   the snapshots kept, and whether each fits the fabric",
            "  qtable snapshot restore NAME           put a snapshot back, on every switch or none",
            "  qtable reseed [--policy P]             restart every switch's learning from a seed (minimal, hops, zero, snapshot:NAME)",
            "SWITCH is a name or a GUID; save, restore and reseed need the daemon's admin token if it has one (--token-file)."})
final class QTableCommand implements Callable<Integer> {
    @Mixin
    Daemon daemon;
    @Mixin
    JsonOption json;
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1..3", paramLabel = "SWITCH | snapshot save|list|restore NAME | reseed")
    List<String> args = new ArrayList<>();

    @Option(names = "--row", paramLabel = "GROUP,SLOT", converter = RowConverter.class,
            description = "Only the row of packets to destination group GROUP from host slot SLOT")
    QTableRow row;

    @Option(names = "--replace", description = "With 'snapshot save': replace a snapshot of that name")
    boolean replace;

    @Option(names = "--policy", paramLabel = "P", description = "With 'reseed': minimal, hops, zero, or snapshot:NAME (that snapshot restored). Default: the engine's qtable_seed")
    String policy;

    @Override
    public Integer call() {
        String verb = args.get(0);
        if (verb.equals("snapshot")) {
            only(row == null && policy == null, "--row and --policy are not for 'qtable snapshot'");
            return snapshot();
        }
        if (verb.equals("reseed")) {
            only(args.size() == 1 && row == null && !replace, "usage: fabricctl qtable reseed [--policy minimal|hops|zero|snapshot:NAME]");
            ReseedQTablesResponse r = daemon.call(a -> a.reseedQTables(ReseedQTablesRequest.newBuilder()
                    .setPolicy(policy == null ? "" : policy).build()));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("reseeded", r.getSwitches());
            m.put("policy", r.getPolicy());
            print(m, "every switch's learning starts again from the '" + r.getPolicy() + "' seed (" + r.getSwitches() + " switches)");
            return 0;
        }
        only(args.size() == 1 && policy == null && !replace, "usage: fabricctl qtable SWITCH [--row GROUP,SLOT] (--policy is for "
                + "'reseed', --replace for 'snapshot save')");
        GetQTableRequest.Builder q = GetQTableRequest.newBuilder().setSwitch(verb);
        if (row != null) {
            q.setRow(row);
        }
        QTable t = daemon.call(a -> a.getQTable(q.build()));
        if (json.json) {
            print(tableJson(t), null);
        } else {
            printTable(spec.commandLine().getOut(), t);
        }
        return 0;
    }

    /** {@code qtable snapshot save|list|restore}. */
    private int snapshot() {
        String usage = "usage: fabricctl qtable snapshot save NAME [--replace] | snapshot list | snapshot restore NAME";
        String what = args.size() > 1 ? args.get(1) : "";
        if (what.equals("list") && args.size() == 2) {
            only(!replace, "--replace is for 'qtable snapshot save'");
            QTableSnapshotList l = daemon.call(a -> a.listQTableSnapshots(ListQTableSnapshotsRequest.getDefaultInstance()));
            if (json.json) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("directory", l.getDirectory());
                List<Object> all = new ArrayList<>();
                l.getSnapshotsList().forEach(i -> all.add(info(i)));
                m.put("snapshots", all);
                m.put("more", l.getMore());
                print(m, null);
                return 0;
            }
            PrintWriter out = spec.commandLine().getOut();
            out.printf("snapshots in %s%n", l.getDirectory().isEmpty() ? "(no state directory)" : l.getDirectory());
            out.printf("%-24s %10s %8s  %-24s %s%n", "name", "bytes", "switches", "created", "fits the fabric");
            for (QTableSnapshotInfo i : l.getSnapshotsList()) {
                out.printf("%-24s %10d %8d  %-24s %s%n", i.getName(), i.getBytes(), i.getSwitches(), created(i),
                        i.getFits() ? "yes" : "no: " + i.getProblem());
            }
            if (l.getMore() > 0) {
                out.printf("(%d more not listed)%n", l.getMore());
            }
            out.flush();
            return 0;
        }
        only(args.size() == 3 && (what.equals("save") || what.equals("restore")), usage);
        String name = args.get(2);
        if (what.equals("save")) {
            QTableSnapshotInfo i = daemon.call(a -> a.saveQTableSnapshot(SaveQTableSnapshotRequest.newBuilder().setName(name)
                    .setReplace(replace).build()));
            print(info(i), "saved " + i.getName() + ": " + i.getSwitches() + " switches' Q-tables, " + i.getBytes() + " bytes in "
                    + i.getFile());
            return 0;
        }
        only(!replace, "--replace is for 'qtable snapshot save'");
        QTableSnapshotInfo i = daemon.call(a -> a.restoreQTableSnapshot(RestoreQTableSnapshotRequest.newBuilder().setName(name).build()));
        print(info(i), "restored " + i.getName() + " (taken " + created(i) + ") on " + i.getSwitches() + " switches: their learning "
                + "starts again from its values");
        return 0;
    }

    /** Refuses the command line (exit 2, one line) unless {@code ok}. */
    private static void only(boolean ok, String why) {
        if (!ok) {
            throw new IllegalArgumentException(why);
        }
    }

    /** {@code m} as JSON with {@code --json}, else the line {@code text}. */
    private void print(Map<String, Object> m, String text) {
        PrintWriter out = spec.commandLine().getOut();
        out.println(json.json ? Json.write(m) : text);
        out.flush();
    }

    private static String created(QTableSnapshotInfo i) {
        return i.getCreatedEpochMillis() == 0 ? "-" : Instant.ofEpochMilli(i.getCreatedEpochMillis()).toString();
    }

    private static Map<String, Object> info(QTableSnapshotInfo i) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", i.getName());
        m.put("file", i.getFile());
        m.put("bytes", i.getBytes());
        m.put("createdEpochMillis", i.getCreatedEpochMillis());
        m.put("switches", i.getSwitches());
        m.put("fits", i.getFits());
        m.put("problem", i.getProblem());
        return m;
    }

    static Map<String, Object> tableJson(QTable t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("switch", t.getSwitchName());
        m.put("guid", Guids.format(t.getGuid()));
        m.put("group", t.getGroup());
        m.put("index", t.getIndex());
        m.put("groups", t.getGroups());
        m.put("hostsPerRouter", t.getHostsPerRouter());
        m.put("rows", t.getRows());
        List<Object> columns = new ArrayList<>();
        for (QTableColumn c : t.getColumnsList()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("port", c.getPort());
            x.put("kind", c.getKind());
            x.put("peer", c.getPeer());
            columns.add(x);
        }
        m.put("columns", columns);
        List<Object> rows = new ArrayList<>();
        int cols = t.getColumnsCount();
        for (int i = 0; cols > 0 && i < t.getQValuesCount() / cols; i++) {
            int row = t.getFirstRow() + i;
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("row", row);
            x.put("group", t.getHostsPerRouter() == 0 ? row : row / t.getHostsPerRouter());
            x.put("slot", t.getHostsPerRouter() == 0 ? 0 : row % t.getHostsPerRouter());
            x.put("values", t.getQValuesList().subList(i * cols, (i + 1) * cols));
            x.put("seed", t.getQSeedList().subList(i * cols, (i + 1) * cols));
            rows.add(x);
        }
        m.put("table", rows);
        m.put("qUpdates", t.getQUpdates());
        m.put("qExplorations", t.getQExplorations());
        m.put("minimalDecisions", t.getMinimalDecisions());
        m.put("nonminimalDecisions", t.getNonminimalDecisions());
        return m;
    }

    /** The table as text: a line of the switch, a line of its learning, then per row each column's value / seed in ns. */
    private static void printTable(PrintWriter out, QTable t) {
        long decisions = t.getMinimalDecisions() + t.getNonminimalDecisions();
        out.printf("%s (%s): router %d of group %d; %d groups, %d host slot%s a router; %d rows%n", t.getSwitchName(),
                Guids.format(t.getGuid()), t.getIndex(), t.getGroup(), t.getGroups(), t.getHostsPerRouter(),
                t.getHostsPerRouter() == 1 ? "" : "s", t.getRows());
        out.printf("learning: %d updates, %d explorations, %d decisions (%s non-minimal)%n", t.getQUpdates(), t.getQExplorations(),
                decisions, decisions == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * t.getNonminimalDecisions() / decisions));
        StringBuilder head = new StringBuilder(String.format("%-12s", "group,slot"));
        for (QTableColumn c : t.getColumnsList()) {
            head.append(String.format(" %19s", "p" + c.getPort() + (c.getKind().equals("local") ? " to r" : " to g") + c.getPeer()));
        }
        out.println(head + "   (value/seed, ns)");
        int cols = t.getColumnsCount();
        for (int i = 0; cols > 0 && i < t.getQValuesCount() / cols; i++) {
            int row = t.getFirstRow() + i;
            int hosts = Math.max(1, t.getHostsPerRouter());
            StringBuilder line = new StringBuilder(String.format("%-12s", row / hosts + "," + row % hosts));
            for (int c = 0; c < cols; c++) {
                line.append(String.format(Locale.ROOT, " %19s", String.format(Locale.ROOT, "%.1f/%.1f", t.getQValues(i * cols + c),
                        t.getQSeed(i * cols + c))));
            }
            out.println(line);
        }
        out.flush();
    }

    /** {@code GROUP,SLOT}: two whole numbers from 0, refused while parsing otherwise. */
    static final class RowConverter implements ITypeConverter<QTableRow> {
        @Override
        public QTableRow convert(String value) {
            String[] parts = value.split(",", -1);
            try {
                if (parts.length == 2) {
                    int group = Integer.parseInt(parts[0].strip());
                    int slot = Integer.parseInt(parts[1].strip());
                    if (group >= 0 && slot >= 0) {
                        return QTableRow.newBuilder().setGroup(group).setSlot(slot).build();
                    }
                }
            } catch (NumberFormatException e) {
                // said below
            }
            throw new CommandLine.TypeConversionException("'" + Excerpt.bare(value) + "' is not GROUP,SLOT (a destination group and a host slot, "
                    + "whole numbers from 0, e.g. 2,0)");
        }
    }
}
