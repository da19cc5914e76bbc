package io.outboxrelay.claim;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Claims are fenced by the partitions' leases: a dead relay's partitions (and the events it had claimed) wait for its
 * lease to expire; live relays never share a row (on PostgreSQL and MariaDB).
 */
@Tag("services")
class LeaseTest {

    private TestDatabase db;
    private final String type = "lease" + UUID.randomUUID().toString().substring(0, 8);

    private Map<String, String> settings(String instanceId) {
        Map<String, String> s = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                SharedKafka.broker().bootstrapServers());
        s.put("outbox.instance-id", instanceId);
        s.put("outbox.batch-size", "50");
        return s;
    }

    @Test
    void eventsOfADeadRelaysPartitionsArePublishedByAnotherAfterTheLeaseExpires() {
        try (TestDatabase created = TestDatabase.create()) {
            db = created;
            deadRelaysPartitions();
        }
    }

    private void deadRelaysPartitions() {
        // the first relay creates the schema, then "dies" owning every partition
        try (RelayInstance first = RelayInstance.start(settings("first"))) {
            assertTrue(first.context().isStarted());
        }
        for (int i = 0; i < 10; i++) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) VALUES (?, ?, 'E', '{}')",
                    type, "k" + i);
        }
        db.update("UPDATE outbox_partitions SET owner = 'crashed-relay', lease_until = now() + interval '3 seconds'");
        Timestamp leaseEnd = (Timestamp) db.query("SELECT max(lease_until) AS t FROM outbox_partitions")
                .get(0).get("t");

        try (RelayInstance second = RelayInstance.start(settings("second"))) {
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 10);
        }
        List<Map<String, Object>> rows = db.query("SELECT published_at FROM outbox");
        for (Map<String, Object> row : rows) {
            assertFalse(((Timestamp) row.get("published_at")).before(leaseEnd),
                    "published only after the lease expired");
        }
        assertEquals(10, SharedKafka.read("outbox.event." + type, 10, Duration.ofSeconds(20)).size());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void twoRelaysOnOneTablePublishEveryRowExactlyOnceInKeyOrder(Database database) {
        try (TestDatabase created = TestDatabase.create(database)) {
            db = created;
            twoRelaysPublishEveryRowOnce();
        }
    }

    private void twoRelaysPublishEveryRowOnce() {
        int events = 3000;
        try (RelayInstance a = RelayInstance.start(settings("relay-a"));
                RelayInstance b = RelayInstance.start(settings("relay-b"))) {
            for (int i = 0; i < events; i += 100) {
                StringBuilder values = new StringBuilder();
                for (int j = i; j < i + 100; j++) {
                    values.append(j == i ? "" : ",").append("('").append(type).append("', 'key-").append(j % 40)
                            .append("', 'E', '{\"n\": ").append(j).append("}')");
                }
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) VALUES " + values);
            }
            await().atMost(Duration.ofSeconds(120)).until(
                    () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == events);
        }

        Map<String, Long> seqById = new HashMap<>();
        db.query("SELECT " + db.text("id") + " AS id, seq FROM outbox")
                .forEach(r -> seqById.put((String) r.get("id"), (Long) r.get("seq")));
        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, events,
                Duration.ofSeconds(60));
        assertEquals(events, records.size(), "every row once, no duplicates");

        Set<String> ids = new HashSet<>();
        Map<String, Long> lastSeqByKey = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            String id = SharedKafka.headers(record).get("ce_id");
            assertTrue(ids.add(id), "duplicate " + id);
            long seq = seqById.get(id);
            Long previous = lastSeqByKey.put(record.key(), seq);
            assertTrue(previous == null || previous < seq,
                    "key " + record.key() + ": seq " + seq + " after " + previous);
        }
    }
}
