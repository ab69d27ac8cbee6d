package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.Guid2LidFile;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the manager keeps in its state directory, against a live emulated fabric: {@code guid2lid}
 * with a bad line (the rest kept, a {@code .bak} written), as a directory (nothing renumbered,
 * nothing written), with a node down (its LID kept); the table version across a restart.
 */
class StateDirTest {
    private static final String SPEC = "rlft:leaves=2,spines=2,hosts=2";

    private static FabricManager.Snapshot sweep(FabricManager m) throws Exception {
        FabricManager.Snapshot s = m.sweep().get(60, TimeUnit.SECONDS);
        assertEquals(FabricManager.State.UP, s.state(), s.lastError());
        return s;
    }

    private static Map<Long, Integer> lids(FabricManager.Snapshot s) {
        return s.outcome().lids().byPortGuid(s.outcome().fabric());
    }

    private static Map<Long, Integer> file(Path p) throws Exception {
        return Guid2LidFile.read(new StringReader(Files.readString(p)), p.toString()).lids();
    }

    /**
     * A guid2lid whose LIDs are 100 up from the default (so that kept LIDs cannot pass for fresh
     * ones), one line set to LID 0, garbage and binary bytes added: on a fresh fabric (its ports
     * hold no LIDs) every other port gets its LID from the file, the bad one the lowest free, and
     * the file is written again with the old one in {@code guid2lid.bak}.
     */
    @Test
    void aBadLineCostsItsPortOnlyAndTheOldFileIsKept(@TempDir Path dir) throws Exception {
        Path g = dir.resolve("guid2lid");
        Fabric topology = Topologies.generate(SPEC);
        Map<Long, Integer> planned = new HashMap<>();
        org.fabriclab.routing.lid.LidAssigner.assign(topology).byPortGuid(topology).forEach((guid, lid) -> planned.put(guid, lid + 100));
        StringWriter w = new StringWriter();
        Guid2LidFile.write(new java.util.TreeMap<>(planned), w);
        List<String> lines = new java.util.ArrayList<>(w.toString().lines().toList());
        String badLine = lines.get(2);
        long badGuid = Long.parseUnsignedLong(badLine.substring(2, 18), 16);
        lines.set(2, badLine.substring(0, 18) + " 0x0000 0x0000");
        lines.add(4, "garbage");
        byte[] text = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] bytes = java.util.Arrays.copyOf(text, text.length + 3);
        bytes[text.length] = (byte) 0xFF;
        bytes[text.length + 1] = 0;
        bytes[text.length + 2] = '\n';
        Files.write(g, bytes);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
             FabricManager m = new FabricManager(fabric.endpoint("L0_H0"), "minhop", g, new SimpleMeterRegistry())) {
            Map<Long, Integer> got = lids(sweep(m));
            Map<Long, Integer> expected = new HashMap<>(planned);
            expected.put(badGuid, 1);
            assertEquals(expected, got, "every port but the bad line's keeps its LID; that one gets the lowest free");
            assertEquals(got, file(g), "the file written again, whole");
            assertTrue(java.util.Arrays.equals(bytes, Files.readAllBytes(dir.resolve("guid2lid.bak"))), "the old file kept as .bak");
            byte[] written = Files.readAllBytes(g);
            sweep(m);
            assertTrue(java.util.Arrays.equals(written, Files.readAllBytes(g)), "not written again: nothing changed");
            assertTrue(java.util.Arrays.equals(bytes, Files.readAllBytes(dir.resolve("guid2lid.bak"))), ".bak still the old file");
        }
    }

    /**
     * guid2lid a directory: a restarted manager keeps the LIDs the ports hold (nothing renumbered),
     * writes nothing and leaves the directory as it was. So does a manager whose LIDs are remembered
     * nowhere at all.
     */
    @Test
    void anUnreadableFileRenumbersNothing(@TempDir Path dir) throws Exception {
        Path first = dir.resolve("a").resolve("guid2lid");
        Path g = dir.resolve("b").resolve("guid2lid");
        Files.createDirectories(g.resolve("inside"));
        Fabric topology = Topologies.generate(SPEC);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS)) {
            Map<Long, Integer> before;
            Map<Long, Integer> shifted = new HashMap<>();
            try (FabricManager a = new FabricManager(fabric.endpoint("L0_H0"), "minhop", first, new SimpleMeterRegistry())) {
                sweep(a);
                // LIDs moved by hand, so that what the ports hold differs from a fresh assignment
                file(first).forEach((guid, lid) -> shifted.put(guid, lid + 40));
                try (var out = Files.newBufferedWriter(first)) {
                    Guid2LidFile.write(shifted, out);
                }
            }
            try (FabricManager a = new FabricManager(fabric.endpoint("L0_H0"), "minhop", first, new SimpleMeterRegistry())) {
                before = lids(sweep(a));
                assertEquals(shifted, before);
            }
            // the same manager to the fabric (its SM GUID), with another state directory
            Mastership.Config same = new Mastership.Config(FabricManager.smGuid(first), 0, 0);
            try (FabricManager b = new FabricManager(fabric.endpoint("L1_H1"), "minhop", g, new SimpleMeterRegistry(), same)) {
                FabricManager.Snapshot s = sweep(b);
                assertEquals(before, lids(s), "the ports' own LIDs kept");
                assertEquals(0, s.outcome().activatedPorts(), "no port re-armed with another LID");
            }
            assertTrue(Files.isDirectory(g.resolve("inside")), "the directory as it was");
            assertFalse(Files.exists(dir.resolve("b").resolve("guid2lid.bak")));
            try (FabricManager c = new FabricManager(fabric.endpoint("L1_H1"), "minhop", null, new SimpleMeterRegistry(), same)) {
                assertEquals(before, lids(sweep(c)), "without any file the ports' LIDs are kept too");
            }
        }
    }

    /** A host that is down at a sweep keeps its LID in the file, and gets it back when it returns; no newcomer took it. */
    @Test
    void aNodeDownKeepsItsLid(@TempDir Path dir) throws Exception {
        Path g = dir.resolve("guid2lid");
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager m = new FabricManager(fabric.endpoint("L0_H0"), "minhop", g, new SimpleMeterRegistry())) {
            Map<Long, Integer> all = lids(sweep(m));
            Fabric f = m.snapshot().outcome().fabric();
            int h = f.nodeByName("L1_H1").orElseThrow();
            long port = f.portGuid(h, 1);
            fabric.linkDown("L1_H1", 1);
            Waits.until("a sweep without L1_H1", () -> m.snapshot().state() == FabricManager.State.UP
                    && m.snapshot().outcome().fabric().nodeByName("L1_H1").isEmpty());
            assertFalse(lids(m.snapshot()).containsKey(port));
            assertEquals(all, file(g), "the file still names L1_H1's port with its LID");
            fabric.linkUp("L1_H1", 1);
            Waits.until("a sweep with L1_H1 back", () -> m.snapshot().state() == FabricManager.State.UP
                    && m.snapshot().outcome().fabric().nodeByName("L1_H1").isPresent());
            assertEquals(all, lids(m.snapshot()), "back with its LID");
        }
    }

    /** The table version goes on across a restart (it restarted at 1). */
    @Test
    void theTableVersionIsKeptAcrossARestart(@TempDir Path dir) throws Exception {
        Path g = dir.resolve("guid2lid");
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS)) {
            long version;
            try (FabricManager a = new FabricManager(fabric.endpoint("L0_H0"), "minhop", g, new SimpleMeterRegistry())) {
                assertEquals(1, sweep(a).tableVersion());
                version = a.setEngine("updn").get(60, TimeUnit.SECONDS).tableVersion();
                assertEquals(2, version, "updn's tables differ from minhop's");
            }
            assertEquals("2", Files.readString(dir.resolve("table-version")).strip());
            try (FabricManager b = new FabricManager(fabric.endpoint("L0_H0"), "updn", g, new SimpleMeterRegistry())) {
                assertEquals(2, b.snapshot().tableVersion(), "before its first sweep");
                assertEquals(2, sweep(b).tableVersion(), "the switches hold these tables: no change, no new version");
                assertEquals(3, b.setEngine("minhop").get(60, TimeUnit.SECONDS).tableVersion());
            }
            Files.writeString(dir.resolve("table-version"), "not a number\n");
            try (FabricManager c = new FabricManager(fabric.endpoint("L0_H0"), "minhop", g, new SimpleMeterRegistry())) {
                assertEquals(0, c.snapshot().tableVersion(), "an unreadable version counts from 0 (logged)");
            }
        }
    }
}
