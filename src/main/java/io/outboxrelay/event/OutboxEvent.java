package io.outboxrelay.event;

import java.time.Instant;

/**
 * One claimed outbox row, as sql/claim.sql returns it (mapped by {@link OutboxEventRows}).
 *
 * @param headers  the row's headers object as JSON text, or null
 * @param holdsKey it failed before (or was replayed) and holds its key's later events back (held_keys): once it is
 *                 settled, those are claimable
 */
public record OutboxEvent(String id, long seq, int partition, String aggregateType, String aggregateId,
        String eventType, String payload, String headers, Instant createdAt, int attempts, boolean holdsKey) {

    /** An event that holds no key back. */
    public OutboxEvent(String id, long seq, int partition, String aggregateType, String aggregateId, String eventType,
            String payload, String headers, Instant createdAt, int attempts) {
        this(id, seq, partition, aggregateType, aggregateId, eventType, payload, headers, createdAt, attempts, false);
    }

    /** The ordering scope: events of one key are claimed, sent and held back together. */
    public String key() {
        return aggregateType + '\u0000' + aggregateId;
    }
}
