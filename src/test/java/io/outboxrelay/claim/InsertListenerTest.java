package io.outboxrelay.claim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The insert notification's payload: the lowest seq inserted, or nothing usable. */
class InsertListenerTest {

    @Test
    void readsTheFirstSeqOfAnInsert() {
        assertEquals(42L, InsertListener.firstSeq("42"));
    }

    @Test
    void anythingElseSaysNothing() {
        assertEquals(Long.MAX_VALUE, InsertListener.firstSeq(""), "an outbox not migrated to V6");
        assertEquals(Long.MAX_VALUE, InsertListener.firstSeq(null));
        assertEquals(Long.MAX_VALUE, InsertListener.firstSeq("replay"));
        assertEquals(Long.MAX_VALUE, InsertListener.firstSeq("99999999999999999999"), "out of range");
    }
}
