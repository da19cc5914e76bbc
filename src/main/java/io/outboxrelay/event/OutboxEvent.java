package io.outboxrelay.event;

import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;

/**
 * One claimed outbox row, as sql/claim.sql returns it.
 *
 * @param headers  the row's headers object as JSON text, or null
 * @param holdsKey whether it failed before and its key's later events wait for it
 */
public record OutboxEvent(String id, long seq, int partition, String aggregateType, String aggregateId,
        String eventType, String payload, String headers, Instant createdAt, int attempts, boolean holdsKey) {

    /** From one row of camel-sql's result (column name to value). */
    public static OutboxEvent fromRow(Map<String, Object> row) {
        return new OutboxEvent(String.valueOf(row.get("id")), ((Number) row.get("seq")).longValue(),
                ((Number) row.get("partition_number")).intValue(), (String) row.get("aggregate_type"),
                (String) row.get("aggregate_id"), (String) row.get("event_type"), (String) row.get("payload"),
                (String) row.get("headers"), instant(row.get("created_at")), ((Number) row.get("attempts")).intValue(),
                Boolean.TRUE.equals(row.get("holds_key")));
    }

    /** The ordering scope: events of one key are claimed, sent and held back together. */
    public String key() {
        return aggregateType + '\u0000' + aggregateId;
    }

    private static Instant instant(Object value) {
        if (value instanceof Timestamp timestamp) {
            return timestamp.toInstant();
        }
        if (value instanceof OffsetDateTime offset) {
            return offset.toInstant();
        }
        throw new IllegalArgumentException("created_at: unexpected " + value);
    }
}
