package io.outboxrelay.publish;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.outboxrelay.support.LocalRabbitMq;
import io.outboxrelay.support.LocalRabbitMq.Delivery;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport swap, third protocol: only outbox.endpoint (amqp:queue:NAME) and outbox.amqp.broker-url change, and
 * the machine's real RabbitMQ gets the events over AMQP 1.0 — CloudEvents properties, payload, key order; a row that
 * cannot become a message fails alone; a broker outage pauses the relay without counting attempts, and everything is
 * delivered once the broker is back.
 */
@Tag("services")
class AmqpPublishTest {

    private static final int KEYS = 10;

    private TestDatabase db;
    private String queue;
    private RelayInstance relay;

    @BeforeAll
    static void amqp10() {
        LocalRabbitMq.enableAmqp10();
    }

    @BeforeEach
    void createDatabase() {
        db = TestDatabase.create();
        queue = "outbox-test-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void stop() {
        if (relay != null) {
            relay.close();
        }
        LocalRabbitMq.deleteQueue(queue);
        db.close();
    }

    /** A relay whose only change is the transport: outbox.endpoint and outbox.amqp.broker-url. */
    private void startRelay(Map<String, String> extraSettings) {
        Map<String, String> settings = RelayInstance.settings(db, "amqp:queue:" + queue, "127.0.0.1:1");
        settings.put("outbox.amqp.broker-url", LocalRabbitMq.RELAY_URL);
        // readiness follows the broker within half a second
        settings.put("outbox.health.probe-interval-ms", "500");
        settings.putAll(extraSettings);
        relay = RelayInstance.start(settings);
    }

    @Test
    void publishesEveryRowWithCloudEventsPropertiesInKeyOrderAndFailsOnlyTheBadRow() throws Exception {
        LocalRabbitMq.declareDurableQueue(queue);
        startRelay(Map.of());
        int events = 500;
        insertNumbered(1, events);
        UUID badRow = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) "
                + "VALUES (?, 'order', 'order-bad', 'OrderCreated', '{}'::jsonb, '[1, 2]'::jsonb)", badRow);

        await().atMost(Duration.ofSeconds(60)).until(() -> published() == events);
        await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(row(badRow).get("status")));
        assertEquals(1, row(badRow).get("attempts"), "a row that can never become a message fails at once");
        assertTrue(((String) row(badRow).get("last_error")).contains("headers must be a JSON object"));

        List<Delivery> deliveries = LocalRabbitMq.consume(queue, events, Duration.ofSeconds(30));
        Report report = report(deliveries);
        System.out.println("AmqpPublishTest: " + events + " events over " + KEYS + " keys: " + report);
        assertEquals(new Report(events, 0, 0, List.of()), report);

        Map<String, Map<String, Object>> rows = db.query(
                "SELECT id::text AS id, aggregate_id, event_type, payload::text AS payload, created_at FROM outbox")
                .stream().collect(Collectors.toMap(r -> (String) r.get("id"), Function.identity()));
        for (Delivery delivery : deliveries) {
            Map<String, String> properties = delivery.properties();
            Map<String, Object> row = rows.get(properties.get("ce_id"));
            assertNotNull(row, "ce_id names a row: " + properties);
            assertEquals(row.get("payload"), delivery.body());
            assertEquals(row.get("event_type"), properties.get("ce_type"));
            assertEquals("/outbox", properties.get("ce_source"));
            assertEquals(row.get("aggregate_id"), properties.get("ce_subject"));
            assertEquals(DateTimeFormatter.ISO_INSTANT.format(((Timestamp) row.get("created_at")).toInstant()),
                    properties.get("ce_time"));
            assertEquals("1.0", properties.get("ce_specversion"));
            assertEquals("order", properties.get("ce_aggregatetype"));
            // Camel's JMS key format, as on jms: endpoints: '-' is not allowed in a JMS property name
            assertEquals("application/json", properties.get("content_HYPHEN_type"));
            assertEquals("acme", properties.get("tenant"));
            assertFalse(properties.containsKey("kafka_DOT_KEY"), "no Kafka key on an AMQP message");
        }

        // readiness includes the AMQP broker when AMQP is the transport
        HttpResponse<String> ready = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + relay.managementPort() + "/observe/health/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("\"broker\""), ready.body());
    }

    @Test
    void brokerOutagePausesWithoutCountingAttemptsAndEverythingArrivesAfterwards() throws Exception {
        LocalRabbitMq.declareDurableQueue(queue);
        startRelay(Map.of());
        int before = 200;
        int during = 300;
        insertNumbered(1, before);
        await().atMost(Duration.ofSeconds(60)).until(() -> published() == before);
        BrokerOutage outage = relay.context().getRegistry().lookupByNameAndType("brokerOutage", BrokerOutage.class);

        long stoppedAt;
        long pausedAt;
        long restartedAt;
        try {
            LocalRabbitMq.stopBroker();
            stoppedAt = System.nanoTime();
            await().atMost(Duration.ofSeconds(30)).until(() -> readiness() == 503);
            insertNumbered(before + 1, before + during);
            // the first send fails, a probe finds the broker gone: claims pause
            await().atMost(Duration.ofSeconds(30)).until(outage::isDown);
            pausedAt = System.nanoTime();
            // and stay paused: no attempt counted, nothing FAILED, nothing sent, readiness DOWN
            await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).until(() -> outage.isDown()
                    && readiness() == 503 && published() == before
                    && db.count("SELECT count(*) FROM outbox WHERE attempts > 0 OR status = 'FAILED'") == 0);
        } finally {
            LocalRabbitMq.startBroker();
        }
        restartedAt = System.nanoTime();

        await().atMost(Duration.ofSeconds(30)).until(() -> !outage.isDown());
        long resumedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(60)).until(() -> published() == before + during);
        long drainedAt = System.nanoTime();
        await().atMost(Duration.ofSeconds(30)).until(() -> readiness() == 200);
        assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE attempts > 0 OR status <> 'PUBLISHED'"),
                "no attempt counted, nothing FAILED");

        List<Delivery> deliveries = LocalRabbitMq.consume(queue, before + during, Duration.ofSeconds(30));
        Report report = report(deliveries);
        System.out.printf("AmqpPublishTest: broker stopped %.1f s (until start_app returned); relay paused %.1f s, "
                + "from its first failed send until %.1f s after the restart; 0 attempts counted, 0 FAILED; the %d "
                + "events written during the outage all published %.1f s after the restart; %s%n",
                seconds(stoppedAt, restartedAt), seconds(pausedAt, resumedAt), seconds(restartedAt, resumedAt), during,
                seconds(restartedAt, drainedAt), report);
        assertEquals(new Report(before + during, 0, 0, List.of()), report,
                "the durable queue kept what was sent before the outage; the rest came after it");
    }

    @Test
    void aMessageTheBrokerRefusesIsAFailedAttemptNotAnOutage() throws Exception {
        // a full queue refuses what comes next (RabbitMQ 3.10's AMQP 1.0 plugin closes the connection for it)
        LocalRabbitMq.declareDurableQueue(queue, "{\"x-max-length\": 2, \"x-overflow\": \"reject-publish\"}");
        startRelay(Map.of("outbox.max-attempts", "2", "outbox.redelivery.maximum-redeliveries", "0",
                "outbox.backoff.initial", "PT1S"));
        BrokerOutage outage = relay.context().getRegistry().lookupByNameAndType("brokerOutage", BrokerOutage.class);
        insertNumbered(1, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> published() == 2);

        UUID refused = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, 'order', 'order-refused', 'OrderCreated', '{}'::jsonb)", refused);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            assertFalse(outage.isDown(), "the broker answers: no outage");
            return "FAILED".equals(row(refused).get("status"));
        });
        assertEquals(2, row(refused).get("attempts"));
        String lastError = (String) row(refused).get("last_error");
        System.out.println("AmqpPublishTest: refused by a full queue: " + lastError);
        assertTrue(lastError.contains("(caused by "), "last_error names what went wrong underneath: " + lastError);

        // room in the queue, the operator replays: published
        assertEquals(2, LocalRabbitMq.consume(queue, 2, Duration.ofSeconds(30)).size());
        db.update("UPDATE outbox SET status='PENDING', attempts=0, next_attempt_at=now() WHERE status='FAILED'");
        await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(row(refused).get("status")));
        List<Delivery> replayed = LocalRabbitMq.consume(queue, 1, Duration.ofSeconds(30));
        assertEquals(refused.toString(), replayed.get(0).properties().get("ce_id"));
    }

    /** Events first..last, event n of key 'order-' || (n % KEYS), with a row header, in one transaction. */
    private void insertNumbered(int first, int last) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers) "
                + "SELECT 'order', 'order-' || (n % ?), 'OrderCreated', jsonb_build_object('n', n), "
                + "'{\"tenant\": \"acme\"}'::jsonb FROM generate_series(?, ?) AS n", KEYS, first, last);
    }

    /** What the consumer saw against the table: distinct events, missing rows, duplicates, key order. */
    private record Report(int delivered, int missing, int duplicates, List<String> orderViolations) {
    }

    private Report report(List<Delivery> deliveries) {
        Map<String, Long> seqById = new HashMap<>();
        db.query("SELECT id::text AS id, seq FROM outbox WHERE status = 'PUBLISHED'")
                .forEach(r -> seqById.put((String) r.get("id"), (Long) r.get("seq")));
        Set<String> delivered = new HashSet<>();
        Map<String, Long> lastSeqOfKey = new HashMap<>();
        List<String> violations = new ArrayList<>();
        int duplicates = 0;
        for (Delivery delivery : deliveries) {
            String id = delivery.properties().get("ce_id");
            if (!delivered.add(id)) {
                duplicates++;
                continue;
            }
            String key = delivery.properties().get("ce_subject");
            Long seq = seqById.get(id);
            Long previous = lastSeqOfKey.put(key, seq);
            if (seq != null && previous != null && previous > seq) {
                violations.add(key + ": seq " + seq + " after seq " + previous);
            }
        }
        int missing = (int) seqById.keySet().stream().filter(id -> !delivered.contains(id)).count();
        return new Report(delivered.size(), missing, duplicates, violations);
    }

    private long published() {
        return db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'");
    }

    private Map<String, Object> row(UUID id) {
        return db.query("SELECT * FROM outbox WHERE id = ?", id).get(0);
    }

    /** HTTP status of /observe/health/ready (503 while DOWN). */
    private int readiness() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + relay.managementPort() + "/observe/health/ready")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static double seconds(long fromNanos, long toNanos) {
        return (toNanos - fromNanos) / 1e9;
    }
}
