package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.format.QTableSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricctl qtable} against the real daemon ({@code fabric-manager --emulate
 * dragonfly:p=1,a=4,h=1 --engine q-adaptive}, no traffic, so nothing is learnt and every table
 * is its seed): a switch's table by name or GUID, whole or one row, as JSON and as text; a
 * snapshot saved into the state directory in the documented format and listed as fitting; a
 * reseed by {@code zero} and {@code hops}; the snapshot restored, every switch back to the values it
 * holds; a reseed by the engine's own policy.
 */
class QTableVerbsTest {
    private static final String SWITCH = "G1_S2";

    static EmulatedDaemon daemon(Path dir, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--admin-port", "0",
                "--metrics-port", "0", "--state-dir", dir.toString(), "--sweep-interval", "0", "--m-key", "5eed"));
        args.addAll(List.of(more));
        return EmulatedDaemon.start(args.toArray(String[]::new));
    }

    /** Every switch's Q-values, through {@code fabricctl qtable SWITCH --json}, by switch name. */
    static List<List<Double>> values(EmulatedDaemon d, String field) {
        List<List<Double>> out = new ArrayList<>();
        Fabric f = d.manager().snapshot().outcome().fabric();
        for (int s = 0; s < f.switchCount(); s++) {
            FabricCtlTest.Run r = FabricCtlTest.run("qtable", f.name(f.switchNode(s)), "--server", d.server(), "--json");
            assertEquals(0, r.code(), r.err());
            List<Double> v = new ArrayList<>();
            r.json().path("table").forEach(row -> row.path(field).forEach(x -> v.add(x.asDouble())));
            out.add(v);
        }
        return out;
    }

    @Test
    void aSwitchsTableSnapshotsReseedsAndRestoresThroughFabricctl(@TempDir Path dir) throws Exception {
        try (EmulatedDaemon d = daemon(dir, "--traffic", "none")) {
            String server = d.server();
            FabricCtlTest.Run t = FabricCtlTest.run("qtable", SWITCH, "--server", server, "--json");
            assertEquals(0, t.code(), t.err());
            JsonNode j = t.json();
            assertEquals(SWITCH, j.path("switch").asText());
            assertEquals(1, j.path("group").asInt());
            assertEquals(2, j.path("index").asInt());
            assertEquals(5, j.path("rows").asInt());
            assertEquals(4, j.path("columns").size());
            assertEquals("local", j.path("columns").path(0).path("kind").asText());
            assertEquals("global", j.path("columns").path(3).path("kind").asText());
            assertEquals(4, j.path("columns").path(3).path("port").asInt());
            assertEquals(5, j.path("table").size());
            for (JsonNode row : j.path("table")) {
                assertEquals(row.path("seed"), row.path("values"), "nothing learnt without traffic: " + t.out());
                boolean own = row.path("group").asInt() == 1;
                row.path("seed").forEach(x -> assertEquals(own, x.asDouble() == 0, "only the own group's row is 0: " + row));
            }

            // by GUID, one row
            String guid = j.path("guid").asText();
            FabricCtlTest.Run one = FabricCtlTest.run("qtable", guid, "--row", "3,0", "--server", server, "--json");
            assertEquals(0, one.code(), one.err());
            assertEquals(1, one.json().path("table").size(), one.out());
            assertEquals(j.path("table").path(3), one.json().path("table").path(0));

            // as text: the switch, its learning, a line per row
            FabricCtlTest.Run text = FabricCtlTest.run("qtable", SWITCH, "--server", server);
            assertEquals(0, text.code(), text.err());
            List<String> lines = text.out().lines().toList();
            assertTrue(lines.get(0).startsWith(SWITCH + " (" + guid + "): router 2 of group 1; 5 groups, 1 host slot a router"), text.out());
            assertTrue(lines.get(1).startsWith("learning: 0 updates, 0 explorations, 0 decisions"), text.out());
            assertTrue(lines.get(2).matches("group,slot +p1 to r0 +p2 to r1 +p3 to r3 +p4 to g\\d+ +\\(value/seed, ns\\)"), text.out());
            assertEquals(2 + 1 + 5, lines.size(), text.out());
            assertTrue(lines.get(3).matches("0,0 +(\\d+\\.\\d/\\d+\\.\\d +){3}\\d+\\.\\d/\\d+\\.\\d"), text.out());

            // a snapshot: in the state directory, in the documented format, listed as fitting
            List<List<Double>> seeded = values(d, "values");
            FabricCtlTest.Run save = FabricCtlTest.run("qtable", "snapshot", "save", "seeded", "--server", server, "--json");
            assertEquals(0, save.code(), save.err());
            Path file = dir.resolve("qtables/seeded.qts");
            assertEquals(file.toString(), save.json().path("file").asText());
            QTableSnapshot snap = QTableSnapshot.read(Files.readAllBytes(file), file.toString());
            assertEquals(20, snap.fabric().switches());
            assertEquals(Guids.parse(guid), snap.fabric().guids()[d.manager().snapshot().outcome().fabric().switchIndex(
                    d.manager().snapshot().outcome().fabric().nodeByName(SWITCH).orElseThrow())]);
            FabricCtlTest.Run list = FabricCtlTest.run("qtable", "snapshot", "list", "--server", server, "--json");
            assertEquals(0, list.code(), list.err());
            assertEquals("seeded", list.json().path("snapshots").path(0).path("name").asText(), list.out());
            assertTrue(list.json().path("snapshots").path(0).path("fits").asBoolean(), list.out());
            FabricCtlTest.Run listText = FabricCtlTest.run("qtable", "snapshot", "list", "--server", server);
            assertTrue(listText.out().lines().anyMatch(l -> l.matches("seeded +\\d+ +20 +\\S+Z +yes")), listText.out());

            // reseeds: zero everywhere; hops, three distances; every switch, seed and values alike
            FabricCtlTest.Run zero = FabricCtlTest.run("qtable", "reseed", "--policy", "zero", "--server", server, "--json");
            assertEquals(0, zero.code(), zero.err());
            assertEquals(20, zero.json().path("reseeded").asInt());
            assertEquals("zero", zero.json().path("policy").asText());
            values(d, "values").forEach(v -> v.forEach(x -> assertEquals(0.0, x)));
            values(d, "seed").forEach(v -> v.forEach(x -> assertEquals(0.0, x)));
            FabricCtlTest.Run hops = FabricCtlTest.run("qtable", "reseed", "--policy", "hops", "--server", server);
            assertEquals(0, hops.code(), hops.err());
            assertEquals("every switch's learning starts again from the 'hops' seed (20 switches)", hops.out().strip());
            Set<Double> distinct = new TreeSet<>();
            values(d, "values").forEach(distinct::addAll);
            assertEquals(4, distinct.size(), "0 for the own group, then 1, 2 and 3 hops: " + distinct);

            // the snapshot back: every switch's values as they were when it was saved
            FabricCtlTest.Run restore = FabricCtlTest.run("qtable", "snapshot", "restore", "seeded", "--server", server);
            assertEquals(0, restore.code(), restore.err());
            assertTrue(restore.out().startsWith("restored seeded (taken "), restore.out());
            assertEquals(seeded, values(d, "values"));
            assertEquals(seeded, values(d, "seed"), "a restored snapshot is the seed learning starts again from");

            // a reseed without a policy takes the engine's (minimal, by default): the values of the start
            FabricCtlTest.Run again = FabricCtlTest.run("qtable", "reseed", "--server", server, "--json");
            assertEquals(0, again.code(), again.err());
            assertEquals("minimal", again.json().path("policy").asText());
            assertEquals(seeded, values(d, "values"));
            assertNotEquals(seeded, List.of(), "something compared");

            // a save over a name taken needs --replace
            FabricCtlTest.Run taken = FabricCtlTest.run("qtable", "snapshot", "save", "seeded", "--server", server);
            assertEquals(2, taken.code(), taken.out());
            assertEquals(1, taken.err().lines().count(), taken.err());
            assertTrue(taken.err().startsWith("fabricctl: ALREADY_EXISTS: a snapshot named seeded exists"), taken.err());
            FabricCtlTest.Run replaced = FabricCtlTest.run("qtable", "snapshot", "save", "seeded", "--replace", "--server", server);
            assertEquals(0, replaced.code(), replaced.err());
            assertFalse(Files.exists(dir.resolve("qtables/.seeded.tmp")), "no temporary file left behind");
        }
    }
}
