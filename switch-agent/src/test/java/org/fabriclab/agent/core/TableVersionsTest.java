package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Table versions are unsigned with a ceiling, so no write can leave a switch at a version its
 * manager cannot raise; a replacing write rebuilds the tables whole from a fresh switch's and may
 * move the version down, which is how a manager takes a switch back.
 */
class TableVersionsTest {
    private static final int PORTS = 4;

    private static byte[] ports(int p) {
        byte[] b = new byte[SwitchTables.BLOCK];
        Arrays.fill(b, (byte) p);
        return b;
    }

    @Test
    void aVersionAboveTheCeilingIsRefusedAndChangesNothing() throws Exception {
        TableStore store = new TableStore(PORTS);
        store.apply(TableBatch.builder(0, 1).block(0, ports(1)).build());
        SwitchTables before = store.current();
        for (long to : new long[] {Long.MAX_VALUE, -1L, Long.MIN_VALUE, SwitchTables.MAX_VERSION + 1}) {
            TableWriteException e = assertThrows(TableWriteException.class, () -> store.apply(TableBatch.builder(1, to).block(0, ports(2)).build()));
            assertEquals(TableWriteException.Reason.VERSION_CEILING, e.reason());
            assertTrue(e.getMessage().contains(Long.toUnsignedString(to)), e.getMessage());
            assertSame(before, store.current(), "refused: the very same snapshot stays");
        }
        store.apply(TableBatch.builder(1, SwitchTables.MAX_VERSION).block(0, ports(2)).build());
        assertEquals(SwitchTables.MAX_VERSION, store.current().version());
        // at the ceiling only a replacing write moves the switch on
        assertEquals(TableWriteException.Reason.VERSION_CEILING, assertThrows(TableWriteException.class,
                () -> store.apply(TableBatch.builder(SwitchTables.MAX_VERSION, SwitchTables.MAX_VERSION + 1).build())).reason());
        assertEquals(TableWriteException.Reason.INVALID, assertThrows(TableWriteException.class,
                () -> store.apply(TableBatch.builder(SwitchTables.MAX_VERSION, 1).build())).reason(), "down, but not replacing");
        store.apply(TableBatch.builder(SwitchTables.MAX_VERSION, 1).replace(true).block(1, ports(3)).build());
        assertEquals(1, store.current().version());
    }

    @Test
    void aStaleFromVersionIsNamedUnsigned() {
        TableStore store = new TableStore(PORTS);
        TableWriteException e = assertThrows(TableWriteException.class, () -> store.apply(TableBatch.builder(Long.MIN_VALUE, 1).build()));
        assertEquals(TableWriteException.Reason.STALE_VERSION, e.reason());
        assertTrue(e.getMessage().contains("9223372036854775808"), e.getMessage());
    }

    @Test
    void aReplacingWriteLeavesOnlyWhatItNamesAndCountsChangesAgainstTheOldTables() throws Exception {
        TableStore store = new TableStore(PORTS);
        byte[] lanes = new byte[SwitchTables.SERVICE_LEVELS];
        Arrays.fill(lanes, (byte) 1);
        short[] ar = new short[SwitchTables.BLOCK];
        ar[3] = 1;
        store.apply(TableBatch.builder(0, 5).block(0, ports(1)).block(2, ports(2)).lftTop(150).sl2vl(0, 0, lanes)
                .arGroup(1, new int[] {1, 2}, new int[0]).arBlock(0, ar).arEnabled(true).directionPorts(new int[] {1, 2})
                .arStaticInputs(new int[] {3}).build());

        // the same block 0, block 2 gone, AR gone: two LFT blocks and one AR block differ
        int changed = store.apply(TableBatch.builder(5, 6).replace(true).block(0, ports(1)).lftTop(63).build());
        assertEquals(2, changed);
        SwitchTables t = store.current();
        assertEquals(6, t.version());
        assertArrayEquals(ports(1), t.block(0));
        assertArrayEquals(ports(SwitchTables.NO_ROUTE), t.block(2));
        assertEquals(63, t.lftTop());
        assertEquals(0, t.vl(1, 2, 5), "SL-to-VL back to a fresh switch's");
        assertFalse(t.arEnabled());
        assertEquals(0, t.arGroup(3));
        assertEquals(0, t.directionPorts().length);
        assertEquals(0, t.arStaticInputs().length);

        assertEquals(0, store.apply(TableBatch.builder(6, 2).replace(true).block(0, ports(1)).lftTop(63).build()), "same tables, new base");
        assertEquals(2, store.current().version());
        assertEquals(TableWriteException.Reason.INVALID, assertThrows(TableWriteException.class,
                () -> store.apply(TableBatch.builder(2, 2).replace(true).build())).reason(), "a replacing write still changes the version");
    }
}
