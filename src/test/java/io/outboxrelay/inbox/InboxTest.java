package io.outboxrelay.inbox;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The postgresql-inbox route template on the real PostgreSQL (MariaDbInboxTest: MariaDB) and Kafka, instantiated the
 * way users do (a templatedRoute in outbox.routes-dir, the handler a route of theirs): a duplicate is dropped and
 * counted, two long ids that differ only at their end are two messages, a handler failure rolls the inbox row back
 * with the business row and is redelivered by the consumer, a message without ce_id is not applied.
 */
@Tag("services")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InboxTest {

    private static final String ROUTES = """
            - templatedRoute:
                routeTemplateRef: postgresql-inbox
                routeId: test-inbox
                parameters:
                  - name: name
                    value: test-consumer
                  - name: from
                    value: "kafka:%1$s?groupId=%1$s&autoOffsetReset=earliest&breakOnFirstError=true\
            &headerDeserializer=#kafkaStringHeaders"
                  - name: handler
                    value: direct:apply-order
            - route:
                id: apply-order
                from:
                  uri: direct:apply-order
                  steps:
                    - to: "sql:INSERT INTO applied_orders (order_id, body) VALUES \
            (:#${header.ce_subject}, :#${bodyAs(String)})"
                    # fails while the test says so: after the business write, so the rollback must undo it
                    - filter:
                        simple: "${header.ce_subject} == 'order-flaky'"
                        steps:
                          - to: "sql:SELECT count(*) AS failing FROM failing_orders \
            WHERE order_id = :#${header.ce_subject}?outputType=SelectOne"
                          - filter:
                              simple: "${body} > 0"
                              steps:
                                - throwException:
                                    exceptionType: java.lang.IllegalStateException
                                    message: "handler failed on purpose"
            """;

    private TestDatabase db;
    private RelayInstance relay;
    private KafkaProducer<String, String> producer;
    private String topic;

    /** The database of the consumer's inbox and business tables (MariaDbInboxTest: MariaDB). */
    Database database() {
        return Database.POSTGRESQL;
    }

    @BeforeAll
    void startConsumer() throws Exception {
        db = TestDatabase.create(database());
        boolean mariaDb = database() == Database.MARIADB;
        db.update("CREATE TABLE applied_orders (order_id varchar(255) NOT NULL, body text, applied_at "
                + (mariaDb ? "timestamp(6) DEFAULT current_timestamp(6))" : "timestamptz DEFAULT now())"));
        db.update("CREATE TABLE failing_orders (order_id varchar(255) PRIMARY KEY)");
        // a topic and a consumer group of its own: the MariaDB subclass may run in the same JVM, on the same broker
        topic = "inbox-test-" + UUID.randomUUID().toString().substring(0, 8);
        Path routes = Files.createTempDirectory("inbox-routes");
        Files.writeString(routes.resolve("inbox-test.camel.yaml"), ROUTES.formatted(topic));
        String brokers = SharedKafka.broker().bootstrapServers();
        Map<String, String> settings = RelayInstance.settings(db, "kafka:unused", brokers);
        settings.put("outbox.routes-dir", routes.toString());
        // the janitor every second
        settings.put("outbox.retention.interval-ms", "1000");
        relay = RelayInstance.start(settings);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer = new KafkaProducer<>(p);
    }

    @AfterAll
    void stopConsumer() {
        if (producer != null) {
            producer.close();
        }
        if (relay != null) {
            relay.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void theSameEventDeliveredTwiceIsAppliedOnce() throws Exception {
        String ceId = UUID.randomUUID().toString();
        double duplicatesBefore = relay.counter("inbox.duplicates.dropped");
        send(ceId, "order-twice");
        send(ceId, "order-twice");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> relay.counter("inbox.duplicates.dropped") == duplicatesBefore + 1);
        assertEquals(1, db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-twice'"));
        assertEquals(1, db.count("SELECT count(*) FROM inbox WHERE message_id = ? AND consumer = 'test-consumer' "
                + "AND source = '/test' AND type = 'OrderPlaced'", ceId));
    }

    @Test
    void twoLongIdsThatDifferOnlyAtTheirEndAreTwoMessages() throws Exception {
        // longer than InnoDB's longest index key (3,072 bytes) or a short column: neither may cut them into one id
        String prefix = "long-" + UUID.randomUUID() + "-" + "x".repeat(3100);
        double duplicatesBefore = relay.counter("inbox.duplicates.dropped");
        send(prefix + "-1", "order-long-1");
        send(prefix + "-2", "order-long-2");
        send(prefix + "-1", "order-long-1");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> db.count("SELECT count(*) FROM applied_orders WHERE order_id LIKE 'order-long-%'") == 2);
        // the copy of the first (its key's partition: after it) is dropped
        await().atMost(Duration.ofSeconds(60))
                .until(() -> relay.counter("inbox.duplicates.dropped") == duplicatesBefore + 1);
        assertEquals(2, db.count("SELECT count(*) FROM inbox WHERE message_id LIKE ?", prefix + "%"));
        assertEquals(1, db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-long-1'"));
        assertEquals(1, db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-long-2'"));
        assertEquals(1, db.count("SELECT count(*) FROM inbox WHERE message_id = ?", prefix + "-2"));
    }

    @Test
    void aFailingHandlerRollsBackItsWriteAndTheInboxRowAndIsRedeliveredUntilItSucceeds() throws Exception {
        db.update("INSERT INTO failing_orders VALUES ('order-flaky')");
        String ceId = UUID.randomUUID().toString();
        double consumedBefore = relay.counter("inbox.messages.consumed");
        try {
            send(ceId, "order-flaky");
            await().atMost(Duration.ofSeconds(60)).until(() -> relay.counter("inbox.handler.failures") >= 3);
            assertEquals(0, db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-flaky'"),
                    "the handler's write was rolled back");
            assertEquals(0, db.count("SELECT count(*) FROM inbox WHERE message_id = ?", ceId),
                    "and the inbox row with it");
        } finally {
            // the consumer redelivers it until it succeeds, holding its partition back meanwhile
            db.update("DELETE FROM failing_orders");
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-flaky'") == 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> relay.counter("inbox.messages.consumed") >= consumedBefore + 1);
        assertEquals(1, db.count("SELECT count(*) FROM inbox WHERE message_id = ?", ceId));
    }

    @Test
    void aMessageWithoutCeIdIsNotAppliedAndTheConsumerCarriesOn() throws Exception {
        double invalidBefore = relay.counter("inbox.messages.invalid");
        producer.send(new ProducerRecord<>(topic, "order-anonymous", "{}")).get();
        String ceId = UUID.randomUUID().toString();
        send(ceId, "order-after-anonymous");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> db.count(
                        "SELECT count(*) FROM applied_orders WHERE order_id = 'order-after-anonymous'") == 1);
        assertEquals(invalidBefore + 1, relay.counter("inbox.messages.invalid"));
        assertEquals(0, db.count("SELECT count(*) FROM applied_orders WHERE order_id = 'order-anonymous'"));
    }

    @Test
    void theJanitorDeletesInboxRowsOlderThanTheRetention() throws Exception {
        // the janitor cleans an inbox this process uses
        String ceId = UUID.randomUUID().toString();
        send(ceId, "order-recent");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> db.count("SELECT count(*) FROM inbox WHERE message_id = ?", ceId) == 1);
        boolean mariaDb = database() == Database.MARIADB;
        String eightDaysAgo = mariaDb ? "now(6) - INTERVAL 8 DAY" : "now() - interval '8 days'";
        String sevenDaysOneMinuteAgo = mariaDb ? "now(6) - INTERVAL 7 DAY - INTERVAL 1 MINUTE"
                : "now() - interval '7 days 1 minute'";
        db.update("INSERT INTO inbox (consumer, message_id, received_at) VALUES ('test-consumer', 'old-1', "
                + eightDaysAgo + "), ('test-consumer', 'old-2', " + sevenDaysOneMinuteAgo + ")");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> db.count("SELECT count(*) FROM inbox WHERE message_id LIKE 'old-%'") == 0);
        assertEquals(1, db.count("SELECT count(*) FROM inbox WHERE message_id = ?", ceId), "a recent row stays");
    }

    private void send(String ceId, String orderId) throws Exception {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, orderId,
                "{\"orderId\": \"" + orderId + "\"}");
        record.headers().add("ce_id", ceId.getBytes(StandardCharsets.UTF_8));
        record.headers().add("ce_subject", orderId.getBytes(StandardCharsets.UTF_8));
        record.headers().add("ce_source", "/test".getBytes(StandardCharsets.UTF_8));
        record.headers().add("ce_type", "OrderPlaced".getBytes(StandardCharsets.UTF_8));
        producer.send(record).get();
    }
}
