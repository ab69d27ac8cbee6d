package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;

/**
 * The LANES field's packing: service level, lane, hops and routing mode each in their own bits, so
 * setting one never disturbs another, and bits 28-31 (reserved for packet-kind and congestion
 * flags) survive every accessor here.
 */
class PacketPoolTest {
    private static final int RESERVED = 0xF000_0000;

    /** A capacity whose header array would wrap an int is refused by its size, not a NegativeArraySizeException. */
    @Test
    void aPoolBeyondAnIntIndexedHeaderIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new PacketPool(PacketPool.MAX_CAPACITY + 1));
        assertEquals("a packet pool of 268435455 packets growing to 268435455 is outside 1..268435454", e.getMessage());
        assertTrue(4 + 8L * PacketPool.MAX_CAPACITY <= Integer.MAX_VALUE - 8, "the header array of the largest pool is one Java allocates");
    }

    @Test
    void everyFieldKeepsToItsBitsAndTheReservedBitsSurvive() throws Exception {
        PacketPool pool = new PacketPool(4);
        int h = pool.allocate();
        int[] header = header(pool);
        int lanes = 4 + h * 8 + 5; // PAD + h * STRIDE + LANES
        header[lanes] = RESERVED; // what another field's owner may have set
        pool.sl(h, 0x1AB);
        pool.vl(h, 0x2CD);
        pool.hops(h, 300); // wraps modulo 256, as the live frame's byte does
        pool.mode(h, 0x37);
        assertEquals(0xAB, pool.sl(h));
        assertEquals(0xCD, pool.vl(h));
        assertEquals(300 & 0xFF, pool.hops(h));
        assertEquals(7, pool.mode(h));
        assertEquals(RESERVED, header[lanes] & RESERVED, "bits 28-31 untouched");
        pool.hops(h, 0);
        pool.mode(h, 0);
        pool.sl(h, 0);
        pool.vl(h, 0);
        assertEquals(RESERVED, header[lanes], "every field cleared, the reserved bits still set");
        pool.mode(h, 15);
        pool.hops(h, 255);
        assertEquals(15, pool.mode(h));
        assertEquals(255, pool.hops(h));
        assertEquals(RESERVED | 15 << 24 | 255 << 16, header[lanes]);
    }

    private static int[] header(PacketPool pool) throws Exception {
        Field f = PacketPool.class.getDeclaredField("header");
        f.setAccessible(true);
        return (int[]) f.get(pool);
    }
}
