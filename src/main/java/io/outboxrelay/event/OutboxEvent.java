package io.outboxrelay.event;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.component.sql.DefaultRowMapperFactory;
import org.springframework.jdbc.core.RowMapper;

/**
 * One claimed outbox row, as sql/claim.sql returns it (mapped by {@link Rows}); a claim's events are a {@link Batch}.
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

    /**
     * The events of one claim and what became of each while the claim route sends them: acknowledged by the broker
     * (to be marked PUBLISHED), failed (the failure was recorded on its row, and its key's later events in this batch
     * are not sent), or not sent (left PENDING as claimed: the broker is down, or an earlier event of its key failed).
     * Held in an exchange property of the claim; parts sent in parallel update it from their own threads.
     */
    public static final class Batch {

        private final List<OutboxEvent> events;
        private final Map<String, OutboxEvent> byId;
        private final Set<String> published = ConcurrentHashMap.newKeySet();
        private final Set<String> failedKeys = ConcurrentHashMap.newKeySet();
        private volatile boolean sendingStopped;
        private final Instant claimedAt = Instant.now();

        public Batch(List<OutboxEvent> events) {
            this.events = List.copyOf(events);
            Map<String, OutboxEvent> index = new HashMap<>(events.size() * 2);
            events.forEach(e -> index.put(e.id(), e));
            this.byId = index;
        }

        /** @param events camel-sql's result of sql/claim.sql */
        public static Batch of(List<OutboxEvent> events) {
            return new Batch(events);
        }

        /** When the claim read its events. */
        public Instant claimedAt() {
            return claimedAt;
        }

        /** In claim order: per partition, in seq order. */
        public List<OutboxEvent> events() {
            return events;
        }

        public int size() {
            return events.size();
        }

        public OutboxEvent event(String id) {
            OutboxEvent event = byId.get(id);
            if (event == null) {
                throw new IllegalArgumentException("event " + id + " is not in this batch");
            }
            return event;
        }

        /** How many events of each partition the claim returned. */
        public Map<Integer, Integer> countsByPartition() {
            Map<Integer, Integer> counts = new LinkedHashMap<>();
            events.forEach(e -> counts.merge(e.partition(), 1, Integer::sum));
            return counts;
        }

        /** The broker acknowledged this event: it is marked PUBLISHED with the claim. */
        public void acknowledge(String id) {
            published.add(id);
        }

        /** In claim order, the events not acknowledged yet: after the parts, what is sent one by one. */
        public List<String> unpublishedIds() {
            List<String> ids = new ArrayList<>();
            for (OutboxEvent event : events) {
                if (!published.contains(event.id())) {
                    ids.add(event.id());
                }
            }
            return ids;
        }

        public boolean isPublished(String id) {
            return published.contains(id);
        }

        /** The event's failure was recorded: the rest of its key is not sent, and waits for it. */
        public void holdBackKeyOf(String id) {
            failedKeys.add(event(id).key());
        }

        /** The broker does not answer, or the relay stops: nothing more of this batch is sent. */
        public void stopSending() {
            sendingStopped = true;
        }

        /** Whether the event may still be sent: sending goes on, and no earlier event of its key failed. */
        public boolean maySend(String id) {
            return !sendingStopped && !failedKeys.contains(event(id).key());
        }

        /** The acknowledged events, in claim order. */
        public List<OutboxEvent> publishedEvents() {
            if (published.isEmpty()) {
                return Collections.emptyList();
            }
            List<OutboxEvent> acknowledged = new ArrayList<>(published.size());
            events.forEach(e -> {
                if (published.contains(e.id())) {
                    acknowledged.add(e);
                }
            });
            return acknowledged;
        }

        /** The acknowledged events' ids. */
        public String[] publishedIds() {
            return published.toArray(new String[0]);
        }

        /** The parameters of sql/mark.sql: the acknowledged events' ids. */
        public Map<String, Object> markParameters() {
            return Map.of("ids", publishedIds());
        }
    }
}
