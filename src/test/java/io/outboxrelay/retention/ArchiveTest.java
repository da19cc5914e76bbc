package io.outboxrelay.retention;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * outbox.retention.mode=archive moves old PUBLISHED rows, unchanged, to outbox_archive in bounded batches, and nothing
 * else (PostgreSQL and MariaDB); outbox.archive.retention drops whole month partitions (PostgreSQL) or deletes the
 * rows archived before it in bounded batches (MariaDB's plain archive table); the archive table exists whatever the
 * mode; on MariaDB one janitor pass at a time per outbox (its lock named after database and table). (A kill -9 in
 * the middle of a large archive run: ArchiveCrashIT; the time at 2 million rows: bench/, the archive scenario.)
 */
@Tag("services")
class ArchiveTest {

    /** Every column of an archived row: the outbox's own, and the event's partition the archive stores. */
    private static final String COLUMNS = "id, seq, aggregate_type, aggregate_id, event_type, "
            + "payload::text AS payload, "
            + "headers::text AS headers, created_at, status, attempts, last_error, next_attempt_at, published_at, "
            + "partition_number";
    /** The same of a row still in the outbox, which computes its partition from its key (migration V9). */
    private static final String OUTBOX_COLUMNS = COLUMNS.replace("partition_number",
            "outbox_partition(aggregate_type, aggregate_id) AS partition_number");
    /** MariaDB's columns: JSON is text there, and the outbox stores its partition. */
    private static final String MARIADB_COLUMNS = COLUMNS.replace("::text", "");
    private static final String PG_ROWS = "SELECT 't', 'old-published', 'E', jsonb_build_object('n', n), "
            + "CAST('{\"h\": \"v\"}' AS jsonb), 'PUBLISHED', n % 2, 'once ' || n, "
            + "now() - interval '8 days' - n * interval '1 minute', now() - interval '30 days' "
            + "FROM generate_series(1, 5) n "
            + "UNION ALL SELECT 't', 'recent-published', 'E', '{}', NULL, 'PUBLISHED', 0, NULL, "
            + "now() - interval '6 days', now() - interval '30 days' FROM generate_series(1, 2) "
            + "UNION ALL SELECT 't', 'old-failed', 'E', '{}', NULL, 'FAILED', 10, 'boom', NULL, "
            + "now() - interval '30 days' FROM generate_series(1, 2) "
            + "UNION ALL SELECT 't', 'old-pending', 'E', '{}', NULL, 'PENDING', 3, 'retrying', NULL, "
            + "now() - interval '30 days' FROM generate_series(1, 2)";
    /** The same rows on MariaDB (seq_1_to_N: its Sequence engine). */
    private static final String MARIADB_ROWS = "SELECT 't', 'old-published', 'E', JSON_OBJECT('n', seq), "
            + "'{\"h\": \"v\"}', 'PUBLISHED', seq % 2, CONCAT('once ', seq), "
            + "now(6) - INTERVAL 8 DAY - INTERVAL seq MINUTE, now(6) - INTERVAL 30 DAY FROM seq_1_to_5 "
            + "UNION ALL SELECT 't', 'recent-published', 'E', '{}', NULL, 'PUBLISHED', 0, NULL, "
            + "now(6) - INTERVAL 6 DAY, now(6) - INTERVAL 30 DAY FROM seq_1_to_2 "
            + "UNION ALL SELECT 't', 'old-failed', 'E', '{}', NULL, 'FAILED', 10, 'boom', NULL, "
            + "now(6) - INTERVAL 30 DAY FROM seq_1_to_2 "
            + "UNION ALL SELECT 't', 'old-pending', 'E', '{}', NULL, 'PENDING', 3, 'retrying', NULL, "
            + "now(6) - INTERVAL 30 DAY FROM seq_1_to_2";

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void archiveModeMovesOnlyOldPublishedRowsUnchangedInBoundedBatches(Database database) {
        try (TestDatabase db = TestDatabase.create(database)) {
            boolean mariaDb = database == Database.MARIADB;
            migrate(db);
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers, status, "
                    + "attempts, last_error, published_at, created_at) " + (mariaDb ? MARIADB_ROWS : PG_ROWS));
            List<Map<String, Object>> before = db.query("SELECT " + (mariaDb ? MARIADB_COLUMNS : OUTBOX_COLUMNS)
                    + " FROM outbox WHERE aggregate_id = 'old-published' ORDER BY seq");
            assertTrue(before.stream().allMatch(row -> row.get("partition_number") != null), before.toString());
            try (RelayInstance relay = RelayInstance.start(settings(db, "archive"))) {
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'old-published'") == 0);

                List<Map<String, Object>> archived = db.query("SELECT " + (mariaDb ? MARIADB_COLUMNS : COLUMNS)
                        + " FROM outbox_archive ORDER BY seq");
                assertEquals(before, archived, "every column unchanged");
                // batch-size 2: three statements (2 + 2 + 1), each with its own archived_at (its transaction's now())
                assertEquals(3, db.count("SELECT count(DISTINCT archived_at) FROM outbox_archive"));
                assertEquals(5, db.count("SELECT count(*) FROM outbox_archive WHERE archived_at > "
                        + (mariaDb ? "now(6) - INTERVAL 1 MINUTE" : "now() - interval '1 minute'")));
                if (!mariaDb) {
                    assertEquals(0, db.count("SELECT count(*) FROM outbox_archive_default"),
                            "the month's partition exists");
                }
                // each batch counted once: the rows moved, not the statements' row changes
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> relay.counter("outbox.archive.rows.archived") == 5.0);

                if (mariaDb) {
                    db.query("ANALYZE TABLE outbox_archive");
                } else {
                    db.update("ANALYZE outbox_archive");
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> gauge(relay, "outbox.archive.rows") == 5.0);
            }
            Map<String, Long> left = db.query("SELECT aggregate_id, count(*) AS n FROM outbox GROUP BY aggregate_id")
                    .stream().collect(Collectors.toMap(r -> (String) r.get("aggregate_id"), r -> (Long) r.get("n")));
            assertEquals(Map.of("recent-published", 2L, "old-failed", 2L, "old-pending", 2L), left);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void deleteModeLeavesTheArchiveEmptyAndSwitchingModesNeedsNoMigration(Database database) {
        try (TestDatabase db = TestDatabase.create(database)) {
            try (RelayInstance relay = RelayInstance.start(settings(db, "delete"))) {
                insertOldPublished(db, "deleted", 3);
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'deleted'") == 0);
            }
            assertEquals(0, db.count("SELECT count(*) FROM outbox_archive"), "delete mode deletes");
            long migrations = db.count("SELECT count(*) FROM outbox_schema_history");

            try (RelayInstance relay = RelayInstance.start(settings(db, "archive"))) {
                insertOldPublished(db, "archived", 3);
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox_archive WHERE aggregate_id = 'archived'") == 3);
            }
            assertEquals(migrations, db.count("SELECT count(*) FROM outbox_schema_history"), "no migration ran");
            assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'archived'"));
        }
    }

    @Test
    void archiveRetentionDropsOnlyMonthsEntirelyPastIt() {
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = settings(db, "archive");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                // migrated: this month and the next have their partitions
            }
            YearMonth now = YearMonth.now(ZoneOffset.UTC);
            // four months ago: entirely more than 62 days old; last month: partly younger, kept whole
            String old = partition(db, now.minusMonths(4));
            String lastMonth = partition(db, now.minusMonths(1));
            db.update("INSERT INTO outbox_archive SELECT gen_random_uuid(), n, 't', 'k', 'E', '{}', NULL, now(), "
                    + "'PUBLISHED', 0, NULL, now(), now(), 0, CAST(? AS timestamptz) + interval '1 day' "
                    + "FROM generate_series(1, 10) n", now.minusMonths(4).atDay(1) + "T00:00:00Z");
            db.update("INSERT INTO outbox_archive SELECT gen_random_uuid(), n, 't', 'k', 'E', '{}', NULL, now(), "
                    + "'PUBLISHED', 0, NULL, now(), now(), 0, CAST(? AS timestamptz) + interval '1 day' "
                    + "FROM generate_series(1, 10) n", now.minusMonths(1).atDay(1) + "T00:00:00Z");
            // a row in the DEFAULT partition (a month whose partition was missing) is deleted row-wise
            db.update("INSERT INTO outbox_archive SELECT gen_random_uuid(), 1, 't', 'k', 'E', '{}', NULL, now(), "
                    + "'PUBLISHED', 0, NULL, now(), now(), 0, now() + interval '3 years'");
            db.update("INSERT INTO outbox_archive SELECT gen_random_uuid(), 1, 't', 'k', 'E', '{}', NULL, now(), "
                    + "'PUBLISHED', 0, NULL, now(), now(), 0, now() - interval '10 years'");

            settings.put("outbox.archive.retention", "P62D");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.query("SELECT to_regclass(?) AS t", old).get(0).get("t") == null);
            }
            assertNotNull(db.query("SELECT to_regclass(?) AS t", lastMonth).get(0).get("t"));
            assertEquals(10, db.count("SELECT count(*) FROM " + lastMonth));
            assertEquals(1, db.count("SELECT count(*) FROM outbox_archive_default"), "only the expired row went");
            assertEquals(11, db.count("SELECT count(*) FROM outbox_archive"));
        }
    }

    @Test
    void onMariaDbTheArchiveRetentionDeletesTheRowsArchivedBeforeItInBoundedBatches() {
        try (TestDatabase db = TestDatabase.create(Database.MARIADB)) {
            migrate(db);
            // 5 rows archived 70 days ago (3 batches of 2), 3 archived 10 days ago
            String archive = "INSERT INTO outbox_archive SELECT uuid(), seq, 't', ?, 'E', '{}', NULL, now(6), "
                    + "'PUBLISHED', 0, NULL, now(6), now(6), 0, now(6) - INTERVAL ? DAY FROM seq_1_to_";
            db.update(archive + "5", "expired", 70);
            db.update(archive + "3", "kept", 10);
            Map<String, String> settings = settings(db, "archive");
            settings.put("outbox.archive.retention", "P62D");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox_archive WHERE aggregate_id = 'expired'") == 0);
            }
            assertEquals(3, db.count("SELECT count(*) FROM outbox_archive WHERE aggregate_id = 'kept'"));
            assertEquals(3, db.count("SELECT count(*) FROM outbox_archive"));
        }
    }

    @Test
    void onMariaDbOneJanitorPassAtATimePerOutboxNotPerTableName() throws Exception {
        try (TestDatabase db = TestDatabase.create(Database.MARIADB);
                TestDatabase other = TestDatabase.create(Database.MARIADB)) {
            migrate(db);
            migrate(other);
            insertOldPublished(db, "held", 3);
            insertOldPublished(other, "free", 3);
            String batch = "CALL outbox_archive_expired('P7D', 10)";
            try (Connection janitor = db.connect(); Statement st = janitor.createStatement()) {
                // another pass over this outbox holds the janitor's lock
                try (ResultSet rs = st.executeQuery("SELECT GET_LOCK(CONCAT(DATABASE(), '.outbox_janitor'), 0)")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1));
                }
                assertEquals(0, db.count(batch), "this outbox's pass takes nothing while the other runs");
                assertEquals(3, db.count("SELECT count(*) FROM outbox"));
                assertEquals(3, other.count(batch), "an outbox of the same name in another database goes on");
                st.execute("DO RELEASE_LOCK(CONCAT(DATABASE(), '.outbox_janitor'))");
            }
            assertEquals(3, db.count(batch), "the rows moved, one number");
            assertEquals(3, db.count("SELECT count(*) FROM outbox_archive"));
        }
    }

    @Test
    void aMonthWithRowsInTheDefaultPartitionKeepsThemThereInsteadOfFailing() {
        try (TestDatabase db = TestDatabase.create()) {
            migrate(db);
            YearMonth next = YearMonth.now(ZoneOffset.UTC).plusMonths(1);
            String nextPartition = String.format("outbox_archive_%04d_%02d", next.getYear(), next.getMonthValue());
            db.update("DROP TABLE " + nextPartition);
            db.update("INSERT INTO outbox_archive SELECT gen_random_uuid(), 1, 't', 'k', 'E', '{}', NULL, now(), "
                    + "'PUBLISHED', 0, NULL, now(), now(), 0, CAST(? AS timestamptz)", next.atDay(2) + "T00:00:00Z");
            // CREATE TABLE ... PARTITION OF would fail on that row; the janitor's function leaves the month alone
            assertEquals(0, db.count("SELECT outbox_archive_add_partitions()"));
            assertEquals(1, db.count("SELECT count(*) FROM outbox_archive_default"));
            db.update("DELETE FROM outbox_archive_default");
            assertEquals(1, db.count("SELECT outbox_archive_add_partitions()"), "made once the month is free");
        }
    }

    @Test
    void eachBatchReadsTheOldestRowsThroughTheIndex() {
        try (TestDatabase db = TestDatabase.create()) {
            String archive;
            try (RelayInstance relay = RelayInstance.start(RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1"))) {
                archive = relay.context().getRegistry().lookupByNameAndType("sql.archive-expired", String.class)
                        .replace(":#${bean:relaySettings.retentionInterval}", "'P7D'")
                        .replace(":#${bean:relaySettings.retentionBatchSize}", "5000");
            }
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                    + "SELECT 't', 'k' || (n % 100), 'E', '{}', 'PUBLISHED', now() - interval '30 days' "
                    + "+ n * interval '1 second' FROM generate_series(1, 100000) AS n");
            db.update("VACUUM ANALYZE outbox");
            String plan = db.query("EXPLAIN " + archive).stream().map(r -> (String) r.get("QUERY PLAN"))
                    .collect(Collectors.joining("\n"));
            assertTrue(plan.contains("Index Scan using outbox_published_at_idx"), plan);
            assertTrue(!plan.contains("Seq Scan"), plan);
            assertEquals(5000, db.update(archive));
            assertEquals(95000, db.count("SELECT count(*) FROM outbox"));
            assertEquals(5000, db.count("SELECT count(*) FROM outbox_archive"));
        }
    }

    /** The relay's migrations, without a relay: rows can be written before any retention pass. */
    private static void migrate(TestDatabase db) {
        assertTrue(new SchemaMigration(db.dataSource(), db.database(), db.url(),
                TableName.parse("outbox.table", "outbox"), 32, true).migrateSchema());
    }

    private static Map<String, String> settings(TestDatabase db, String mode) {
        Map<String, String> settings = new HashMap<>(RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1"));
        settings.put("outbox.retention", "P7D");
        settings.put("outbox.retention.mode", mode);
        settings.put("outbox.retention.interval-ms", "1000");
        settings.put("outbox.retention.batch-size", "2");
        settings.put("outbox.metrics.refresh-ms", "200");
        return settings;
    }

    private static void insertOldPublished(TestDatabase db, String key, int rows) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                + (db.database() == Database.MARIADB
                        ? "SELECT 't', ?, 'E', '{}', 'PUBLISHED', now(6) - INTERVAL 8 DAY FROM seq_1_to_" + rows
                        : "SELECT 't', ?, 'E', '{}', 'PUBLISHED', now() - interval '8 days' "
                                + "FROM generate_series(1, " + rows + ")"), key);
    }

    /** Makes the archive's partition of a month, as the janitor makes this month's. */
    private static String partition(TestDatabase db, YearMonth month) {
        String name = String.format("outbox_archive_%04d_%02d", month.getYear(), month.getMonthValue());
        db.update("CREATE TABLE " + name + " PARTITION OF outbox_archive FOR VALUES FROM ('" + month.atDay(1)
                + "T00:00:00Z') TO ('" + month.plusMonths(1).atDay(1) + "T00:00:00Z')");
        return name;
    }

    private static double gauge(RelayInstance relay, String name) {
        MeterRegistry registry = relay.context().getRegistry()
                .lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME, MeterRegistry.class);
        Gauge gauge = registry.find(name).gauge();
        return gauge == null ? -1 : gauge.value();
    }
}
