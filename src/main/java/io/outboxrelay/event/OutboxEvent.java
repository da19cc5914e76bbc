package io.outboxrelay.event;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;

import org.apache.camel.component.sql.DefaultRowMapperFactory;
import org.springframework.jdbc.core.RowMapper;

/**
 * One claimed outbox row, as sql/claim.sql returns it (mapped by {@link Rows}).
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

    /**
     * camel-sql's row mapping for the claim (its rowMapperFactory, with outputClass OutboxEvent): each row of
     * sql/claim.sql straight into an {@link OutboxEvent}, instead of a case-insensitive map per row converted
     * afterwards (a tenth of the relay's CPU in a drain profile). Other output classes are mapped as camel-sql maps
     * them.
     */
    public static class Rows extends DefaultRowMapperFactory {

        private static final RowMapper<OutboxEvent> EVENT = Rows::event;

        @Override
        public RowMapper<?> newBeanRowMapper(Class<?> mappedClass) {
            return mappedClass == OutboxEvent.class ? EVENT : super.newBeanRowMapper(mappedClass);
        }

        private static OutboxEvent event(ResultSet rs, int row) throws SQLException {
            return new OutboxEvent(rs.getString("id"), rs.getLong("seq"), rs.getInt("partition_number"),
                    rs.getString("aggregate_type"), rs.getString("aggregate_id"), rs.getString("event_type"),
                    rs.getString("payload"), rs.getString("headers"),
                    rs.getObject("created_at", OffsetDateTime.class).toInstant(),
                    rs.getInt("attempts"), rs.getBoolean("holds_key"));
        }
    }
}
