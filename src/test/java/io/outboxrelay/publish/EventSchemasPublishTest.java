package io.outboxrelay.publish;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * outbox.schemas-dir on the real database and broker: valid events go out with ce_dataschema, an invalid one is
 * never published and FAILED at its first attempt, naming its schema file and the failing pointers; its key's later
 * events wait or carry on as outbox.failed-blocks-key says; events without a schema go out as before.
 */
@Tag("services")
class EventSchemasPublishTest {

    private static final String SCHEMA_ID = "https://example.com/schemas/OrderPlaced.json";
    private static final int VALID = 30;

    @TempDir
    Path schemasDir;

    @ParameterizedTest(name = "outbox.failed-blocks-key={0}")
    @ValueSource(booleans = {false, true})
    void invalidEventsFailAtOnceAndAreNeverPublished(boolean failedBlocksKey) throws IOException {
        String type = "esp" + UUID.randomUUID().toString().substring(0, 8);
        Path schema = schemasDir.resolve(type).resolve("OrderPlaced.schema.json");
        Files.createDirectories(schema.getParent());
        Files.writeString(schema, """
                {
                  "$schema": "https://json-schema.org/draft/2020-12/schema",
                  "$id": "%s",
                  "type": "object",
                  "required": ["id", "total"],
                  "properties": {"id": {"type": "integer"}, "total": {"type": "number", "minimum": 0}}
                }""".formatted(SCHEMA_ID));
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.schemas-dir", schemasDir.toString());
            settings.put("outbox.failed-blocks-key", Boolean.toString(failedBlocksKey));
            // a retry could never help: FAILED at the first attempt whatever max-attempts says
            settings.put("outbox.max-attempts", "5");
            // one transaction: the claim gets them together, the invalid one among valid ones in a part
            List<Object[]> rows = new ArrayList<>();
            UUID before = row(rows, type, "order-1", "OrderPlaced", "{\"id\": 1, \"total\": 10}");
            UUID invalid = row(rows, type, "order-1", "OrderPlaced", "{\"id\": \"two\", \"total\": -1}");
            UUID after = row(rows, type, "order-1", "OrderPlaced", "{\"id\": 3, \"total\": 30}");
            for (int i = 0; i < VALID; i++) {
                row(rows, type, "order-" + (10 + i % 5), "OrderPlaced", "{\"id\": " + i + ", \"total\": 1.5}");
            }
            UUID unchecked = row(rows, type, "order-2", "OrderShipped", "[\"no schema, anything goes\"]");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                insert(db, rows);

                await().atMost(Duration.ofSeconds(60)).until(() -> "FAILED".equals(row(db, invalid).get("status")));
                await().atMost(Duration.ofSeconds(60)).until(() -> db.count(
                        "SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'")
                        == VALID + 2 + (failedBlocksKey ? 0 : 1));

                Map<String, Object> failed = row(db, invalid);
                assertEquals(1, failed.get("attempts"), "no retry: it cannot pass later");
                String error = (String) failed.get("last_error");
                assertTrue(error.startsWith("io.outboxrelay.publish.SchemaViolationException: event " + invalid
                        + ": payload rejected by schema " + schema + ": "), error);
                assertTrue(error.contains("/id: string found, integer expected"), error);
                assertTrue(error.contains("/total: must have a minimum value of 0"), error);
                assertEquals("PUBLISHED", row(db, before).get("status"));
                assertEquals("PUBLISHED", row(db, unchecked).get("status"));
                if (failedBlocksKey) {
                    await("held back by the FAILED event of its key").during(Duration.ofSeconds(1))
                            .atMost(Duration.ofSeconds(3)).until(() -> "PENDING".equals(row(db, after).get("status")));
                } else {
                    assertEquals("PUBLISHED", row(db, after).get("status"));
                }
            }

            int published = VALID + 2 + (failedBlocksKey ? 0 : 1);
            List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, published,
                    Duration.ofSeconds(30));
            assertEquals(published, records.size(), "every valid event once, the invalid one never");
            Set<String> ids = records.stream().map(r -> SharedKafka.headers(r).get("ce_id"))
                    .collect(Collectors.toSet());
            assertFalse(ids.contains(invalid.toString()), "an invalid payload is never published");
            for (ConsumerRecord<String, byte[]> record : records) {
                Map<String, String> headers = SharedKafka.headers(record);
                if (headers.get("ce_id").equals(unchecked.toString())) {
                    assertNull(headers.get("ce_dataschema"), "no schema, no ce_dataschema");
                } else {
                    assertEquals(SCHEMA_ID, headers.get("ce_dataschema"), headers.toString());
                }
            }
        }
    }

    private static UUID row(List<Object[]> rows, String type, String key, String eventType, String payload) {
        UUID id = UUID.randomUUID();
        rows.add(new Object[] {id, type, key, eventType, payload});
        return id;
    }

    /** The rows in one statement, in order (seq follows the VALUES list). */
    private static void insert(TestDatabase db, List<Object[]> rows) {
        String values = String.join(", ", java.util.Collections.nCopies(rows.size(), "(?, ?, ?, ?, ?::jsonb)"));
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES " + values,
                rows.stream().flatMap(java.util.Arrays::stream).toArray());
    }

    private static Map<String, Object> row(TestDatabase db, UUID id) {
        return db.query("SELECT * FROM outbox WHERE id = ?", id).get(0);
    }
}
