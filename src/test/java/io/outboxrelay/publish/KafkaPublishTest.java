package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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

    /**
     * Events of several aggregate types, written interleaved: each lands in its own topic, every record once, and one
     * Kafka endpoint (so one producer) sent them all (publish.PartEndpoints).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void oneProducerSendsEveryTopicsRecordsEachToItsOwnTopic(Database database) {
        String prefix = "mt" + UUID.randomUUID().toString().substring(0, 8);
        List<String> types = List.of(prefix + "order", prefix + "customer", prefix + "invoice");
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = RelayInstance.settings(db,
                    "kafka:outbox.event.${header.ce_aggregatetype}", SharedKafka.broker().bootstrapServers());
            try (RelayInstance relay = RelayInstance.start(settings)) {
                for (int i = 0; i < 3 * 50; i++) {
                    db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                            + "VALUES (?, ?, 'E', " + db.json() + ")", types.get(i % 3), "k" + (i % 7),
                            "{\"n\": " + i + "}");
                }
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 150);

                for (int t = 0; t < 3; t++) {
                    List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + types.get(t),
                            50, Duration.ofSeconds(30));
                    assertEquals(50, records.size(), types.get(t) + ": its 50 events, once");
                    for (ConsumerRecord<String, byte[]> record : records) {
                        String body = new String(record.value(), StandardCharsets.UTF_8);
                        int n = Integer.parseInt(body.substring(6, body.indexOf('}')));
                        assertEquals(t, n % 3, "event " + n + " in the topic of " + types.get(t));
                        assertEquals(types.get(t), SharedKafka.headers(record).get("ce_aggregatetype"));
                    }
                }
                List<String> kafkaEndpoints = relay.context().getEndpoints().stream()
                        .map(e -> e.getEndpointUri()).filter(uri -> uri.startsWith("kafka:")).toList();
                assertEquals(1, kafkaEndpoints.size(), "one endpoint for the three topics: " + kafkaEndpoints);
            }
        }
    }

    /**
     * Writers whose transactions each hold several events of one key, committing while the relay claims: every key's
     * events arrive in seq order. On MariaDB a claim that locked as it read could take a key's later event from a
     * transaction that committed during its scan and leave the earlier one to the next claim (migration V4).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void aKeysEventsWrittenInOneTransactionArePublishedInOrder(Database database) throws Exception {
        String type = "txn" + UUID.randomUUID().toString().substring(0, 8);
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = RelayInstance.settings(db,
                    "kafka:outbox.event.${header.ce_aggregatetype}", SharedKafka.broker().bootstrapServers());
            try (RelayInstance relay = RelayInstance.start(settings)) {
                ExecutorService writers = Executors.newFixedThreadPool(2);
                List<Future<?>> written = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    int writer = w;
                    written.add(writers.submit(() -> writeTransactions(db, type, writer)));
                }
                for (Future<?> f : written) {
                    f.get(120, TimeUnit.SECONDS);
                }
                writers.shutdown();
                int events = 2 * TRANSACTIONS * KEYS_PER_TRANSACTION * 2;
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == events);
                List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, events,
                        Duration.ofSeconds(30));
                assertEquals(events, records.size(), "one record per row");
                Map<String, Integer> lastN = new HashMap<>();
                for (ConsumerRecord<String, byte[]> record : records) {
                    String body = new String(record.value(), StandardCharsets.UTF_8);
                    int n = Integer.parseInt(body.substring(6, body.indexOf('}')));
                    Integer previous = lastN.put(record.key(), n);
                    assertTrue(previous == null || previous < n, record.key() + ": " + previous + " before " + n);
                }
            }
        }
    }

    private static final int TRANSACTIONS = 2;
    private static final int KEYS_PER_TRANSACTION = 500;

    /** Transactions of two events for each of the writer's keys (the first events, then the second), n increasing. */
    private static void writeTransactions(TestDatabase db, String type, int writer) {
        try (Connection c = db.connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO outbox (aggregate_type, aggregate_id, "
                    + "event_type, payload) VALUES (?, ?, 'E', " + db.json() + ")")) {
                int n = 0;
                for (int t = 0; t < TRANSACTIONS; t++) {
                    for (int twice = 0; twice < 2; twice++) {
                        for (int k = 0; k < KEYS_PER_TRANSACTION; k++) {
                            insert.setString(1, type);
                            insert.setString(2, "w" + writer + "-k" + k);
                            insert.setString(3, "{\"n\": " + n++ + "}");
                            insert.addBatch();
                        }
                    }
                    insert.executeBatch();
                    c.commit();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
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
