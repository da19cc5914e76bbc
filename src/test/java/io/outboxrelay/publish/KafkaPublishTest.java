package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The default transport: rows become Kafka records with the contract's key, body and CloudEvents headers, each key's
 * events in seq order; on PostgreSQL and on MariaDB (only outbox.db.url differs).
 */
@Tag("services")
class KafkaPublishTest {

    private static final int EVENTS = 200;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void publishesEveryRowWithKeyBodyAndCloudEventsHeaders(Database database) {
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = RelayInstance.settings(db,
                    "kafka:outbox.event.${header.ce_aggregatetype}", SharedKafka.broker().bootstrapServers());
            settings.put("outbox.source", "/test/orders-service");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                publishes(db);
            }
        }
    }

    private static void publishes(TestDatabase db) {
        String type = "kpt" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < EVENTS; i++) {
            // the contract's minimal writer statement
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "VALUES (?, ?, ?, " + db.json() + ")",
                    type, "order-" + (i % 20), "OrderCreated", "{\"n\": " + i + ", \"note\": \"caf\u00e9\"}");
        }
        UUID withHeaders = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) "
                + "VALUES (?, ?, ?, ?, " + db.json() + ", " + db.json() + ")", withHeaders, type,
                "order-x", "OrderShipped", "{\"carrier\": \"ups\"}",
                "{\"traceparent\": \"00-abc-def-01\", \"tenant\": \"acme\"}");

        await().atMost(Duration.ofSeconds(60)).until(
                () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == EVENTS + 1);

        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, EVENTS + 1,
                Duration.ofSeconds(30));
        assertEquals(EVENTS + 1, records.size(), "one record per row, no duplicates");

        Map<String, Map<String, Object>> rows = db.query(
                "SELECT " + db.text("id") + " AS id, aggregate_id, event_type, " + db.text("payload")
                        + " AS payload, created_at, published_at, last_error FROM outbox").stream()
                .collect(Collectors.toMap(r -> (String) r.get("id"), Function.identity()));
        for (ConsumerRecord<String, byte[]> record : records) {
            Map<String, Object> row = SharedKafka.rowOf(record, rows);
            Map<String, String> headers = SharedKafka.headers(record);
            assertEquals(row.get("event_type"), headers.get("ce_type"));
            assertEquals("/test/orders-service", headers.get("ce_source"));
            assertEquals(row.get("aggregate_id"), headers.get("ce_subject"));
            assertEquals(DateTimeFormatter.ISO_INSTANT.format(((Timestamp) row.get("created_at")).toInstant()),
                    headers.get("ce_time"));
            assertEquals("1.0", headers.get("ce_specversion"));
            assertEquals(type, headers.get("ce_aggregatetype"));
            assertEquals("application/json", headers.get("content-type"));
            assertNotNull(row.get("published_at"));
        }
        Map<String, String> extra = records.stream().map(SharedKafka::headers)
                .filter(h -> withHeaders.toString().equals(h.get("ce_id"))).findFirst().orElseThrow();
        assertEquals("00-abc-def-01", extra.get("traceparent"));
        assertEquals("acme", extra.get("tenant"));

        // per key, in seq order: each key's n values arrive increasing
        Map<String, Integer> lastN = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            String body = new String(record.value(), StandardCharsets.UTF_8);
            if (body.startsWith("{\"n\": ")) {
                int n = Integer.parseInt(body.substring(6, body.indexOf(',')));
                Integer previous = lastN.put(record.key(), n);
                assertTrue(previous == null || previous < n, record.key() + ": " + previous + " before " + n);
            }
        }
        assertEquals(20, lastN.size());
    }
}
