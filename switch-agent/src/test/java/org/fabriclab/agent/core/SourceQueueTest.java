package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SourceQueueTest {
    /** A message is queued whole or refused whole: never a part of it in the queue. */
    @Test
    void aMessageIsQueuedWholeOrRefusedWhole() {
        SourceQueue q = new SourceQueue(8);
        assertTrue(q.addMessage(5, 3, 6));
        assertEquals(2, q.room());
        assertEquals(5, q.headCreated());
        assertEquals(3, q.headFlow());
        assertFalse(q.addMessage(9, 4, 3));
        assertEquals(2, q.room(), "nothing of the refused message queued");
        assertEquals(3, q.refused(), "every packet of it counted refused");
        assertTrue(q.addMessage(9, 4, 2));
        assertTrue(q.isFull());
        assertFalse(q.addMessage(10, 1, 1));
        assertEquals(4, q.refused());
    }
}
