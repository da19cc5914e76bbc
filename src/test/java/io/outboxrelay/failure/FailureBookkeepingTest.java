package io.outboxrelay.failure;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.Payloads;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.apache.camel.support.service.ServiceHelper;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An event the broker rejects (larger than its topic's max.message.bytes) fails each attempt at once (no in-process
 * redelivery can help it, and its key's next event must not be sent meanwhile), counted on its row with backoff, then
 * FAILED at outbox.max-attempts; its batch and other keys carry on; replay brings it back. On PostgreSQL and on
 * MariaDB.
 */
@Tag("services")
class FailureBookkeepingTest {

    private static final int MAX_ATTEMPTS = 3;
    private static final int REDELIVERIES = 2;

    private TestDatabase db;
    private RelayInstance relay;
    private String type;
    private String topic;
    private final AtomicInteger redeliveries = new AtomicInteger();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void rejectedEventIsRetriedCountedThenFailedWhileTheRestIsPublished(Database database) throws Exception {
        type = "fbt" + UUID.randomUUID().toString().substring(0, 8);
        topic = "outbox.event." + type;
        try (TestDatabase created = TestDatabase.create(database)) {
            db = created;
            start();
            try {
                rejectedEventIsRetriedCountedThenFailed();
            } finally {
                relay.close();
            }
        }
    }

    private void start() throws Exception {
        SharedKafka.broker().createTopic(topic, 3, Map.of("max.message.bytes", "131072"));
        Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                SharedKafka.broker().bootstrapServers());
        settings.put("outbox.max-attempts", Integer.toString(MAX_ATTEMPTS));
        settings.put("outbox.redelivery.maximum-redeliveries", Integer.toString(REDELIVERIES));
        settings.put("outbox.backoff.initial", "PT1S");
        relay = RelayInstance.start(settings);
        EventNotifierSupport counter = new EventNotifierSupport() {
            @Override
            public void notify(CamelEvent event) {
                redeliveries.incrementAndGet();
            }

            @Override
            public boolean isEnabled(CamelEvent event) {
                return event instanceof CamelEvent.ExchangeRedeliveryEvent;
            }
        };
        relay.context().getManagementStrategy().addEventNotifier(counter);
        ServiceHelper.startService(counter);
    }

    private void rejectedEventIsRetriedCountedThenFailed() throws Exception {
        String bigPayload = Payloads.tooBig(200_000);
        UUID poison = insert("order-poison", bigPayload);
        UUID afterPoison = insert("order-poison", "{\"n\": \"after\"}");
        UUID badHeaders = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) "
                + "VALUES (?, ?, 'order-bad', 'OrderCreated', " + db.json() + ", " + db.json() + ")", badHeaders, type,
                "{}", "[1, 2]");
        for (int i = 0; i < 20; i++) {
            insert("order-" + i, "{\"n\": " + i + "}");
        }

        // the rest of the batch is published while the poison event is being retried
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count(
                "SELECT count(*) FROM outbox WHERE status = 'PUBLISHED' AND aggregate_id LIKE 'order-%' "
                        + "AND aggregate_id NOT IN ('order-poison', 'order-bad')") == 20);

        // first attempt recorded: counted, error kept, next attempt pushed back; the key's next event waits
        await().atMost(Duration.ofSeconds(30)).until(() -> (int) row(poison).get("attempts") >= 1);
        Map<String, Object> afterFirst = row(poison);
        if ((int) afterFirst.get("attempts") < MAX_ATTEMPTS) {
            assertEquals("PENDING", afterFirst.get("status"));
        }
        assertTrue(((String) afterFirst.get("last_error")).contains("RecordTooLargeException"), afterFirst.toString());
        assertTrue(((Timestamp) afterFirst.get("next_attempt_at")).after((Timestamp) afterFirst.get("created_at")));

        // a row that can never become a message fails at once, without retries
        await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(row(badHeaders).get("status")));
        assertEquals(1, row(badHeaders).get("attempts"));
        assertTrue(((String) row(badHeaders).get("last_error")).contains("headers must be a JSON object"));

        await().atMost(Duration.ofSeconds(60)).until(() -> "FAILED".equals(row(poison).get("status")));
        Map<String, Object> failed = row(poison);
        assertEquals(MAX_ATTEMPTS, failed.get("attempts"));
        assertTrue(((String) failed.get("last_error"))
                .startsWith("org.apache.kafka.common.errors.RecordTooLargeException"));
        // outbox.redelivery.maximum-redeliveries is 2 here, but not for a record too large for its topic
        assertEquals(0, redeliveries.get(), "no in-process redelivery of a record too large for its topic");

        // FAILED no longer holds its key back (outbox.failed-blocks-key=false)
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(row(afterPoison).get("status")));

        // the broker is fixed, the operator replays: the event is published
        try (Admin admin = SharedKafka.broker().admin()) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                    List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", "1048576"),
                            AlterConfigOp.OpType.SET))))
                    .all().get();
        }
        int replayed = db.update("UPDATE outbox SET status='PENDING', attempts=0, next_attempt_at=now() "
                + "WHERE status='FAILED'");
        assertEquals(2, replayed);
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(row(poison).get("status")));
        assertEquals(null, row(poison).get("last_error"));

        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(topic, 22, Duration.ofSeconds(20));
        assertEquals(22, records.size(), "20 healthy events, the key's later event and the replayed one");
    }

    private UUID insert(String key, String payload) {
        UUID id = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, ?, ?, ?, " + db.json() + ")",
                id, type, key, "OrderCreated", payload);
        return id;
    }

    private Map<String, Object> row(UUID id) {
        return db.query("SELECT * FROM outbox WHERE id = ?", id).get(0);
    }
}
