package io.outboxrelay.schema;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The migrations create a schema-qualified outbox beside its own history table, and can be turned off. */
class SchemaMigrationTest {

    @Test
    void createsAndServesASchemaQualifiedTable() {
        String type = "schema" + UUID.randomUUID().toString().substring(0, 8);
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.table", "app.events_outbox");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                assertEquals(2, db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'app' "
                        + "AND table_name IN ('events_outbox', 'events_outbox_schema_history')"));
                db.update("INSERT INTO app.events_outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, 'k', 'E', '{}')", type);
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM app.events_outbox WHERE status = 'PUBLISHED'") == 1);
            }
            assertEquals(0, db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"));
        }
    }

    @Test
    void migrateFalseLeavesTheDatabaseAlone() {
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1");
            settings.put("outbox.schema.migrate", "false");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                assertEquals(0, db.count("SELECT count(*) FROM information_schema.tables "
                        + "WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"));
            }
        }
    }
}
