package org.fabriclab.routing.dragonfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The routing modes as the header carries them and the switch core weighs them: codes fit the
 * header's 4 bits and read back (an unused code as none), names any case with the valid ones named
 * on a mistake, the biases in the order the paper gives (none below low below high, ADAPTIVE_1
 * growing with hops), and a hash that is a function of the addresses and spreads pairs.
 */
class RoutingModeTest {
    @Test
    void everyModeFitsTheHeadersBitsAndReadsBack() {
        for (RoutingMode m : RoutingMode.values()) {
            assertTrue(m.code() >= 0 && m.code() < 1 << RoutingMode.BITS, m.name());
            assertEquals(m, RoutingMode.ofCode(m.code()));
        }
        assertEquals(RoutingMode.DEFAULT, RoutingMode.ofCode(0));
        assertEquals(RoutingMode.DEFAULT, RoutingMode.ofCode(12), "a reserved code is no mode");
    }

    @Test
    void namesAreReadInAnyCaseAndAMistakeNamesTheValidOnes() {
        assertEquals(RoutingMode.ADAPTIVE_3, RoutingMode.byName("ADAPTIVE_3"));
        assertEquals(RoutingMode.NMIN_HASH, RoutingMode.byName("nmin-hash"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RoutingMode.byName("ADAPTIVE_9"));
        assertEquals("unknown routing mode 'ADAPTIVE_9'; valid: DEFAULT, ADAPTIVE_0, ADAPTIVE_1, ADAPTIVE_2, ADAPTIVE_3, MIN_HASH, "
                + "NMIN_HASH, IN_ORDER", e.getMessage());
        String longName = "x".repeat(10_000);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RoutingMode.byName(longName)).getMessage().length() < 300,
                "a long mistake is not repeated whole");
    }

    @Test
    void theBiasesAreInThePapersOrderAndAdaptiveOneGrowsWithHops() {
        int buffer = 20;
        assertEquals(0, RoutingMode.DEFAULT.bias(0, buffer));
        assertEquals(0, RoutingMode.ADAPTIVE_0.bias(3, buffer));
        assertEquals(5, RoutingMode.ADAPTIVE_2.bias(0, buffer));
        assertEquals(20, RoutingMode.ADAPTIVE_3.bias(0, buffer));
        assertEquals(2, RoutingMode.ADAPTIVE_1.bias(0, buffer));
        assertEquals(5, RoutingMode.ADAPTIVE_1.bias(1, buffer));
        assertEquals(10, RoutingMode.ADAPTIVE_1.bias(3, buffer));
        for (RoutingMode m : new RoutingMode[] {RoutingMode.MIN_HASH, RoutingMode.NMIN_HASH, RoutingMode.IN_ORDER}) {
            assertTrue(m.deterministic());
            assertEquals(0, m.bias(0, buffer), m.name() + " takes no measure to bias");
        }
    }

    @Test
    void theHashIsAFunctionOfThePairAndSpreadsPairs() {
        Set<Integer> picks = new HashSet<>();
        for (int s = 1; s <= 64; s++) {
            for (int d = 1; d <= 64; d++) {
                assertEquals(RoutingMode.hash(s, d), RoutingMode.hash(s, d));
                int k = RoutingMode.pick(RoutingMode.hash(s, d), 0, 7);
                assertTrue(k >= 0 && k < 7);
                picks.add(k);
            }
        }
        assertEquals(7, picks.size(), "every intermediate is some pair's");
        assertTrue(RoutingMode.hash(1, 2) != RoutingMode.hash(2, 1), "direction matters");
    }
}
