package io.outboxrelay.schema;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static io.outboxrelay.schema.SchemaMigration.LATEST_MARIADB_VERSION;
import static io.outboxrelay.schema.SchemaMigration.LATEST_VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The migrations create a schema-qualified outbox beside its own history table, and can be turned off. */
@Tag("services")
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

    @Test
    void anOutboxAtTheLatestVersionIsRecognisedWithoutFlyway() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(db.url());
            dataSource.setUser("postgres");
            TableName table = TableName.parse("outbox.table", "outbox");
            assertTrue(new SchemaMigration(dataSource, table, 8, true).migrateSchema());
            // every bundled migration is in the history: the next start reads it and does not run Flyway, which
            // would put back a dropped history row's migration
            assertEquals(LATEST_VERSION, db.count("SELECT max(CAST(version AS integer)) FROM outbox_schema_history"));
            db.update("DROP INDEX outbox_published_at_idx");
            assertTrue(new SchemaMigration(dataSource, table, 8, true).migrateSchema());
            assertEquals(0, db.count("SELECT count(*) FROM pg_indexes WHERE indexname = 'outbox_published_at_idx'"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void theLatestVersionIsTheHighestBundledMigration(Database database) throws Exception {
        try (var files = Files.list(Path.of("src/main/resources/db/migration", database.dialect()))) {
            int highest = files.map(f -> f.getFileName().toString())
                    .filter(name -> name.matches("V\\d+__.*\\.sql"))
                    .mapToInt(name -> Integer.parseInt(name.substring(1, name.indexOf("__")))).max().orElse(0);
            assertEquals(highest, database == Database.MARIADB ? LATEST_MARIADB_VERSION : LATEST_VERSION);
        }
    }
}
