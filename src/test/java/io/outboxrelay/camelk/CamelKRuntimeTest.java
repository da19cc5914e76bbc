package io.outboxrelay.camelk;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.outboxrelay.settings.TableName;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.main.Main;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What deploy/camel-k runs, run here against the real PostgreSQL and Kafka: the Kamelet through the kamelet: component
 * (as a Pipe runs it), and the Integration's sources with the properties it sets (as Camel K runs them).
 */
@Tag("services")
class CamelKRuntimeTest {

    private static final int KEYS = 4;
    private static final int EVENTS_PER_KEY = 25;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theIntegrationsSourcesRelayWithTheSettingsItMounts() throws Exception {
        String type = "cki" + UUID.randomUUID().toString().substring(0, 8);
        try (TestDatabase db = TestDatabase.create()) {
            Main main = IntegrationSources.main(CamelKManifests.read(
                    CamelKManifests.DIRECTORY.resolve("outbox-relay.integration.yaml")));
            // what differs from the cluster: where the database and Kafka are, and a free management port
            Map<String, String> here = new HashMap<>();
            here.put("outbox.db.url", db.url());
            here.put("outbox.db.user", "postgres");
            here.put("camel.component.kafka.brokers", SharedKafka.broker().bootstrapServers());
            try (RelayInstance relay = RelayInstance.start(main, here)) {
                for (int i = 0; i < 50; i++) {
                    db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                            + "VALUES (?, ?, 'E', '{}')",
                            type, "k" + (i % 5));
                }
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 50);
                assertEquals(50, SharedKafka.read("outbox.event." + type, 50, Duration.ofSeconds(30)).size());

                String base = "http://127.0.0.1:" + relay.managementPort();
                for (String probe : List.of("/observe/health/live", "/observe/health/ready")) {
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + probe)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, response.statusCode(), probe + ": " + response.body());
                }
            }
        }
    }

    @Test
    void theKameletRelaysEveryEventInOrderPerKeyAndFailsABadRow() {
        String type = "kam" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.kamelet." + type;
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(db.url());
            dataSource.setUser("postgres");
            assertTrue(new SchemaMigration(dataSource, TableName.parse("outbox.table", "app.events"), 32, true)
                    .migrateSchema());

            for (int i = 0; i < KEYS * EVENTS_PER_KEY; i++) {
                db.update("INSERT INTO app.events (aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, ?, 'OrderChanged', ?::jsonb)",
                        type, "order-" + (i % KEYS), "{\"n\": " + i + "}");
            }
            UUID bad = UUID.randomUUID();
            db.update("INSERT INTO app.events (id, aggregate_type, aggregate_id, event_type, payload, headers) "
                    + "VALUES (?, ?, 'order-0', 'OrderChanged', '{}', '[1, 2]')", bad, type);

            Main main = new Main();
            // only what a Pipe gives the Kamelet: not the relay's application.properties
            main.setDefaultPropertyPlaceholderLocation("false");
            main.addInitialProperty("camel.component.kamelet.location", "file:deploy/camel-k/kamelets");
            main.addInitialProperty("camel.component.kafka.brokers", SharedKafka.broker().bootstrapServers());
            main.configure().addRoutesBuilder(new RouteBuilder() {
                @Override
                public void configure() {
                    from("kamelet:postgresql-outbox-source?databaseUrl=" + db.url() + "&username=postgres"
                            + "&table=app.events&batchSize=3&pollDelay=50&maxAttempts=3&source=/test/kamelet")
                            .routeId("pipe")
                            .to("kafka:" + topic);
                }
            });
            Map<String, String> settings = new HashMap<>();
            settings.put("camel.management.enabled", "false");
            try (RelayInstance pipe = RelayInstance.start(main, settings)) {
                // the bad row is its key's last: claimed only once the key's earlier events are marked
                await().atMost(Duration.ofSeconds(60)).until(() -> db.count(
                        "SELECT count(*) FROM app.events WHERE status = 'PUBLISHED'") == KEYS * EVENTS_PER_KEY
                        && db.count("SELECT count(*) FROM app.events WHERE status <> 'PUBLISHED' AND attempts > 0")
                        == 1);
            }

            Map<String, Object> failed = db.query(
                    "SELECT status, attempts, last_error FROM app.events WHERE id = ?", bad).get(0);
            assertEquals("FAILED", failed.get("status"), "a row that can never be published fails at once: " + failed);
            assertEquals(1, failed.get("attempts"));
            assertTrue(((String) failed.get("last_error")).contains("headers must be a JSON object"),
                    failed.toString());
            assertEquals(0, db.count("SELECT count(*) FROM app.events WHERE status = 'PENDING'"),
                    "nothing left behind");

            List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(topic, KEYS * EVENTS_PER_KEY,
                    Duration.ofSeconds(30));
            assertEquals(KEYS * EVENTS_PER_KEY, records.size(), "one record per published row");
            Map<String, Map<String, Object>> rows = db.query(
                    "SELECT id::text AS id, seq, aggregate_id, payload::text AS payload FROM app.events").stream()
                    .collect(Collectors.toMap(row -> (String) row.get("id"), Function.identity()));
            Map<String, Long> lastSeqOfKey = new HashMap<>();
            for (ConsumerRecord<String, byte[]> record : records) {
                Map<String, Object> row = SharedKafka.rowOf(record, rows);
                Map<String, String> headers = SharedKafka.headers(record);
                assertEquals("/test/kamelet", headers.get("ce_source"));
                assertEquals("OrderChanged", headers.get("ce_type"));
                assertEquals(type, headers.get("ce_aggregatetype"));
                long seq = (Long) row.get("seq");
                Long previous = lastSeqOfKey.put(record.key(), seq);
                assertTrue(previous == null || previous < seq,
                        "per-key order: " + record.key() + " " + previous + " then " + seq);
            }
        }
    }
}
