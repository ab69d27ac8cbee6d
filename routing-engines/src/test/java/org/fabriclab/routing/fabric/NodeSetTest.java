package org.fabriclab.routing.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.List;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** Node sets are counted before they are made and matched one name at a time: no set costs more than its text and the fabric. */
class NodeSetTest {
    private static final Fabric F = Topologies.generate("fat-tree:k=4,levels=3"); // 48 switches, 64 hosts

    private static String refused(String text) {
        return assertThrows(IllegalArgumentException.class, () -> NodeSet.parse(F, text)).getMessage();
    }

    /** 10^9 names (75 s of both cores, then the heap, when they were listed first) are refused by their count. */
    @Test
    void aSetOfABillionNamesIsRefusedByItsCount() {
        assertEquals("node set: 'H[0-999]_[0-999]_[0-999]' names 1000000000 hosts; a set may name at most 224 hosts "
                + "(twice the 112 nodes of fat-tree:k=4,levels=3, repeats counted)", refused("H[0-999]_[0-999]_[0-999]"));
        assertTrue(refused("H[0-9223372036854775807]_[0-9223372036854775807]").contains("names 2^63 or more hosts"));
        assertTrue(refused("H[0-3]_[0-3]_[0-3]," .repeat(4)).contains("with 'H[0-3]_[0-3]_[0-3]' the set names more than 224 hosts"),
                "many small items add up");
    }

    @Test
    void setsWithinTheBoundStillWork() {
        BitSet all = NodeSet.parse(F, "H[0-3]_[0-3]_[0-3]");
        assertEquals(64, all.cardinality());
        assertEquals(64, NodeSet.parse(F, "H[0-3]_[0-3]_[0-3],H0_0_[0-3]").cardinality(), "repeats within the bound");
        assertEquals(List.of("n01", "n02", "n10", "na", "nb"), NodeSet.expand("n[01-02,10,a,b]"));
        assertEquals(List.of("a0x", "a1x", "b0x", "b1x"), NodeSet.expand("[a,b][0-1]x"), "the last bracket turns fastest");
        assertEquals(List.of("H0_0_2"), NodeSet.expand("H0_0_[2-2]"));
    }

    /** The first unknown name of a set is refused; a 64 KB set comes back as a line, not as 64 KB. */
    @Test
    void refusalsNameTheFirstUnknownNameAndRepeatLittle() {
        assertTrue(refused("H0_0_[2-9]").contains("no node named \"H0_0_4\""), "H0_0_4 is the first beyond the fabric");
        assertTrue(refused("H0_0_[3-1]").contains("runs backwards"));
        assertTrue(refused("H0_0_[-1-3]").contains("is not N-M"));
        assertTrue(refused("H0_0_[0-3").contains("unbalanced brackets"));
        String huge = "X".repeat(65_536);
        String m = refused(huge);
        assertTrue(m.length() < Excerpt.QUOTED + 100 && m.contains("(65536 characters)"), m);
        m = refused("H0_0_[" + "1,".repeat(30_000) + "1]");
        assertTrue(m.length() < 2 * Excerpt.QUOTED + 100, m);
    }
}
