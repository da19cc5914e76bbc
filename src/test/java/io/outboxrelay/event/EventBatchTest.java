package io.outboxrelay.event;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A claim's bookkeeping: what was acknowledged, which keys wait, whether anything more may be sent. */
class EventBatchTest {

    private final OutboxEvent a1 = event("a1", 1, 0, "order", "A");
    private final OutboxEvent b1 = event("b1", 2, 0, "order", "B");
    private final OutboxEvent a2 = event("a2", 3, 0, "order", "A");
    private final OutboxEvent c1 = event("c1", 1, 5, "customer", "A");
    private final OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(a1, b1, a2, c1));

    @Test
    void keepsTheClaimOrderAndFindsEventsById() {
        assertEquals(List.of(a1, b1, a2, c1), batch.events());
        assertEquals(4, batch.size());
        assertSame(a2, batch.event("a2"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> batch.event("zz"));
        assertTrue(e.getMessage().contains("zz"));
    }

    @Test
    void isNotChangedByItsCallersList() {
        List<OutboxEvent> events = new ArrayList<>(List.of(a1));
        OutboxEvent.Batch copy = new OutboxEvent.Batch(events);
        events.add(b1);

        assertEquals(1, copy.size());
    }

    @Test
    void countsTheEventsOfEachPartitionInClaimOrder() {
        assertEquals(Map.of(0, 3, 5, 1), batch.countsByPartition());
        assertEquals(List.of(0, 5), List.copyOf(batch.countsByPartition().keySet()));
    }

    @Test
    void aFailedEventHoldsBackItsKeyOnly() {
        batch.holdBackKeyOf("a1");

        assertFalse(batch.maySend("a2"), "a later event of the failed key waits");
        assertTrue(batch.maySend("b1"));
        assertTrue(batch.maySend("c1"), "same aggregate id, other aggregate type: another key");
    }

    @Test
    void aBrokerOutageHoldsBackEverything() {
        batch.stopSending();

        for (OutboxEvent e : batch.events()) {
            assertFalse(batch.maySend(e.id()), e.id());
        }
    }

    @Test
    void theAcknowledgedEventsAreListedInClaimOrderAndMarkedById() {
        batch.acknowledge("c1");
        batch.acknowledge("a1");

        assertEquals(List.of(a1, c1), batch.publishedEvents());
        assertTrue(batch.isPublished("a1"));
        assertFalse(batch.isPublished("b1"));
        assertEquals(Set.of("a1", "c1"), Set.of(batch.publishedIds()));
        assertEquals(Set.of("ids"), batch.markParameters().keySet(), "sql/mark.sql binds :#ids");
        assertEquals(Set.of("a1", "c1"), Set.of((String[]) batch.markParameters().get("ids")));
    }

    @Test
    void nothingAcknowledgedMeansNothingToMark() {
        assertEquals(List.of(), batch.publishedEvents());
        assertEquals(0, batch.publishedIds().length);
        assertEquals(0, ((String[]) batch.markParameters().get("ids")).length);
    }

    @Test
    void aKeyIsItsAggregateTypeAndIdWithoutAmbiguity() {
        assertEquals(a1.key(), a2.key());
        assertNotEquals(a1.key(), c1.key());
        // a plain concatenation would make these one key
        assertNotEquals(event("x", 1, 0, "ab", "c").key(), event("y", 1, 0, "a", "bc").key());
    }

    static OutboxEvent event(String id, long seq, int partition, String aggregateType, String aggregateId) {
        return new OutboxEvent(id, seq, partition, aggregateType, aggregateId, "Created", "{}", null,
                Instant.EPOCH, 0);
    }
}
