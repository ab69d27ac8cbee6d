package org.fabriclab.manager.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the view draws where, per layout, and the size of its answers on the largest fabric of the lab. */
class FabricPictureTest {

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {"fat-tree:k=4,levels=3|tree", "rlft:leaves=3,spines=2,hosts=2|tree", "torus:3x4|torus",
            "torus:2x3x3|torus", "dragonfly:p=1,a=3,h=1|groups", "dragonfly-plus:p=2,leaves=2,spines=2,h=1|groups",
            "random:switches=8,degree=3,hosts=1|ring"})
    void layoutPlacesEverySwitchApartInTheUnitSquare(String spec, String layout) {
        Fabric f = Topologies.generate(spec);
        for (boolean hosts : new boolean[] {false, true}) {
            FabricPicture p = FabricPicture.of(f, hosts);
            assertEquals(layout, p.kind);
            assertEquals(f.switchCount() + (hosts ? f.caCount() : 0), p.nodes.length);
            Set<String> places = new HashSet<>();
            for (int i = 0; i < p.nodes.length; i++) {
                assertTrue(p.x[i] >= -0.01 && p.x[i] <= 1.01 && p.y[i] >= -0.01 && p.y[i] <= 1.01, spec + " node " + i);
                if (i < f.switchCount()) {
                    assertTrue(places.add(Math.round(p.x[i] * 1e4) + "," + Math.round(p.y[i] * 1e4)), "two switches at one place in " + spec);
                }
            }
            int hostLinks = f.caCount(); // each host cabled once in these fabrics
            assertEquals(f.linkCount() - (hosts ? 0 : hostLinks), p.linkCount(), spec);
            assertEquals(f.caCount(), Arrays.stream(p.hosts).sum(), spec);
        }
    }

    @Test
    void treeRowsHaveTheTopLevelAtTheTopAndTorusPlanesSideBySide() {
        FabricPicture tree = FabricPicture.of(Topologies.generate("fat-tree:k=4,levels=3"), true);
        for (int i = 0; i < tree.nodes.length; i++) {
            int level = tree.layout.level(tree.nodes[i]);
            assertEquals((3 - level + 0.5) / 4, tree.y[i], 1e-9, tree.fabric.name(tree.nodes[i]));
        }
        FabricPicture torus = FabricPicture.of(Topologies.generate("torus:2x3x3"), false);
        Map<Integer, Double> leftmost = new HashMap<>();
        for (int i = 0; i < torus.nodes.length; i++) {
            int z = torus.layout.coordinates(torus.nodes[i])[2];
            leftmost.merge(z, torus.x[i], Math::min);
        }
        assertTrue(leftmost.get(0) < leftmost.get(1) && leftmost.get(1) < leftmost.get(2), "z-planes left to right: " + leftmost);
        assertEquals(List.of("torus-x", "torus-y", "torus-z"), torus.kinds.stream().sorted().toList());
    }

    @Test
    void jsonNumbersAreCompactAndValid() {
        JsonWriter j = new JsonWriter(64).array().value(0.0).value(3.0).value(0.00023456).value(1.5e-9).value(Double.NaN).value(12345.678).end();
        assertEquals("[0,3,0.0002346,1.5E-9,null,1.235E+4]", j.toString());
        JsonValue.parse(j.toString());
        assertEquals("{\"a\\\"b\":\"<x>\\n\"}", new JsonWriter(8).open().member("a\"b", "<x>\n").close().toString());
    }

    /**
     * The 18-ary 3-tree (972 switches, 5,832 hosts collapsed into their leaves, 11,664 drawn links):
     * the structure and a load answer with every port polled stay small enough to load in a second
     * or two. Prints the sizes and times that docs/benchmarks.md quotes.
     */
    @Test
    void theLargestTreeStaysSmall() throws IOException {
        long t0 = System.nanoTime();
        Fabric f = Topologies.generate("fat-tree:k=18,levels=3");
        long t1 = System.nanoTime();
        FabricPicture p = FabricPicture.of(f, false);
        long t2 = System.nanoTime();
        String fabric = ViewJson.fabric(p, 1, "UP", "minhop");
        long t3 = System.nanoTime();
        Map<String, PortReading> readings = new HashMap<>();
        Random random = new Random(15);
        for (int v = 0; v < f.nodeCount(); v++) {
            for (int q = 1; q <= f.portCount(v); q++) {
                if (f.peerNode(f.globalPort(v, q)) != Fabric.NONE) {
                    boolean hot = f.isSwitch(v) && random.nextInt(10) == 0;
                    readings.put(PortReading.key(f.name(v), q), new PortReading(f.name(v), q, random.nextDouble(), 1L << 40, 1L << 30,
                            1L << 33, 0, 0, hot, hot ? 0.9 : Double.NaN, hot ? new int[] {1, 2, 3} : new int[0],
                            hot ? new double[] {0.5, 0.3, 0.2} : new double[0]));
                }
            }
        }
        long t4 = System.nanoTime();
        String load = ViewJson.load(p, readings, 1, "UP", 1);
        long t5 = System.nanoTime();
        assertEquals(972, p.switchCount());
        assertEquals(11_664, p.linkCount());
        Map<String, Object> structure = JsonValue.object(fabric);
        assertEquals(972, ((List<?>) structure.get("names")).size());
        assertEquals(4 * 11_664, ((List<?>) structure.get("links")).size());
        Map<String, Object> l = JsonValue.object(load);
        assertEquals(2 * 11_664, ((List<?>) l.get("u")).size());
        assertEquals(ViewJson.TOP_CONGESTED, ((List<?>) l.get("top")).size());
        int fabricBytes = fabric.getBytes(StandardCharsets.UTF_8).length;
        int loadBytes = load.getBytes(StandardCharsets.UTF_8).length;
        System.out.printf("18-ary 3-tree view: generate %d ms, picture %d ms, /api/fabric %d bytes (%d gzipped) in %d ms, "
                        + "/api/load with %d ports polled %d bytes (%d gzipped) in %d ms%n",
                (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, fabricBytes, gzipped(fabric), (t3 - t2) / 1_000_000, readings.size(),
                loadBytes, gzipped(load), (t5 - t4) / 1_000_000);
        assertTrue(fabricBytes < 400_000, "structure " + fabricBytes + " bytes");
        assertTrue(loadBytes < 250_000, "load " + loadBytes + " bytes");
    }

    /**
     * A port's node answer carries its receive errors (PortRcvErrors) beside its discards, each its
     * own figure, as the perf manager last read them; a port not polled yet carries neither.
     */
    @Test
    void aNodesPortsCarryTheirReceiveErrorsBesideTheirDiscards() {
        Fabric f = Topologies.generate("rlft:leaves=2,spines=1,hosts=1");
        FabricPicture p = FabricPicture.of(f, true);
        int leaf = f.switchNode(0);
        Map<String, PortReading> readings = new HashMap<>();
        readings.put(PortReading.key(f.name(leaf), 1), new PortReading(f.name(leaf), 1, 0.5, 4096, 2, 0, 3, 7, false, Double.NaN,
                new int[0], new double[0]));
        Map<String, Object> node = JsonValue.object(ViewJson.node(p, null, readings, leaf, 0, 10));
        List<?> ports = (List<?>) node.get("ports");
        Map<?, ?> polled = (Map<?, ?>) ports.get(0);
        assertEquals(1.0, polled.get("port"));
        assertEquals(7.0, polled.get("rcvErrors"), polled.toString());
        assertEquals(3.0, polled.get("discards"), polled.toString());
        Map<?, ?> unpolled = (Map<?, ?>) ports.get(1);
        assertTrue(!unpolled.containsKey("rcvErrors") && !unpolled.containsKey("discards"), unpolled.toString());
    }

    private static int gzipped(String s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return out.size();
    }
}
