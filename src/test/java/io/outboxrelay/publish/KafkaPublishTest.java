package io.outboxrelay.publish;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The default transport: rows become Kafka records with the contract's key, body and CloudEvents headers. */
@Tag("services")
class KafkaPublishTest {

    private static final int EVENTS = 200;
    private static TestDatabase db;
    private static RelayInstance relay;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        String brokers = SharedKafka.broker().bootstrapServers();
        Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                brokers);
        settings.put("outbox.source", "/test/orders-service");
        relay = RelayInstance.start(settings);
    }

    @AfterAll
    static void stop() {
        relay.close();
        db.close();
    }

    @Test
    void publishesEveryRowWithKeyBodyAndCloudEventsHeaders() {
        String type = "kpt" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < EVENTS; i++) {
            // the contract's minimal writer statement
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "VALUES (?, ?, ?, ?::jsonb)",
                    type, "order-" + (i % 20), "OrderCreated", "{\"n\": " + i + ", \"note\": \"caf\u00e9\"}");
        }
        UUID withHeaders = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) "
                + "VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb)", withHeaders, type, "order-x", "OrderShipped",
                "{\"carrier\": \"ups\"}", "{\"traceparent\": \"00-abc-def-01\", \"tenant\": \"acme\"}");

        await().atMost(Duration.ofSeconds(60)).until(
                () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == EVENTS + 1);

        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, EVENTS + 1,
                Duration.ofSeconds(30));
        assertEquals(EVENTS + 1, records.size(), "one record per row, no duplicates");

        Map<String, Map<String, Object>> rows = db.query(
                "SELECT id::text AS id, aggregate_id, event_type, payload::text AS payload, created_at, published_at, "
                        + "last_error FROM outbox").stream()
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
    }
}
