package io.outboxrelay.retention;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of the packaged relay in the middle of a large archive run, several times, restarting each time: every row
 * ends up in exactly one of the outbox and its archive, with every column unchanged. On MariaDB (its archive batch a
 * procedure's transaction) with fewer rows in smaller batches: as many batches to kill in, less time.
 */
@Tag("services")
class ArchiveCrashIT {

    private static final int FAILED = 1_000;
    private static final int KILLS = 3;
    /** The row's columns as text, as the archive has them: the outbox's, and the event's partition. */
    private static final String ROW = "md5(concat_ws('|', id, seq, aggregate_type, aggregate_id, event_type, payload, "
            + "headers, created_at, status, attempts, last_error, next_attempt_at, published_at, partition_number))";
    /** The same of a row still in the outbox on PostgreSQL, which computes its partition from its key (V9). */
    private static final String PG_OUTBOX_ROW = ROW.replace("partition_number",
            "outbox_partition(aggregate_type, aggregate_id)");
    /** The same on MariaDB, its texts in one collation (the keys' binary no-pad one, JSON's and ASCII's do not mix). */
    private static final String MARIADB_ROW = "md5(concat_ws('|', CAST(id AS char), seq, CAST(aggregate_type AS char), "
            + "CAST(aggregate_id AS char), CAST(event_type AS char), CAST(payload AS char), CAST(headers AS char), "
            + "created_at, CAST(status AS char), attempts, CAST(last_error AS char), next_attempt_at, published_at, "
            + "partition_number))";

    /** PostgreSQL in the suite; MariaDB too with -Dtest.database=MARIADB (30,000 rows: passed, ~50 s). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#postgresql")
    void killNineWhileArchivingLosesAndDuplicatesNothing(Database database) {
        boolean mariaDb = database == Database.MARIADB;
        int published = mariaDb ? 30_000 : 300_000;
        String outboxRow = mariaDb ? MARIADB_ROW : PG_OUTBOX_ROW;
        String archiveRow = mariaDb ? MARIADB_ROW : ROW;
        try (TestDatabase db = TestDatabase.create(database)) {
            assertTrue(new SchemaMigration(db.dataSource(), database, db.url(),
                    TableName.parse("outbox.table", "outbox"), 32, true).migrateSchema());
            insertRows(db, published);
            db.update("CREATE TABLE before_crash AS SELECT id, " + outboxRow + " AS digest FROM outbox");
            db.update("ALTER TABLE before_crash ADD PRIMARY KEY (id)");
            if (mariaDb) {
                db.query("ANALYZE TABLE outbox");
            } else {
                db.update("VACUUM ANALYZE outbox");
            }

            for (int kill = 1; kill <= KILLS; kill++) {
                long threshold = (long) published * kill / (KILLS + 1);
                try (RelayProcess relay = RelayProcess.startJar(environment(db), "-Dcamel.management.port=0")) {
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                            .until(() -> archived(db) >= threshold || !relay.isAlive());
                    assertTrue(relay.isAlive(), relay.output());
                    relay.kill();
                }
                long archivedAtKill = archived(db);
                System.out.printf("ArchiveCrashIT (%s): kill %d with %d rows archived, %d left in the outbox%n",
                        database, kill, archivedAtKill, db.count("SELECT count(*) FROM outbox"));
                assertTrue(archivedAtKill < published, "killed in the middle of the run, not after it");
                check(db, published, outboxRow, archiveRow);
            }
            try (RelayProcess relay = RelayProcess.startJar(environment(db), "-Dcamel.management.port=0")) {
                await().atMost(Duration.ofSeconds(300)).until(() -> archived(db) == published);
            }
            check(db, published, outboxRow, archiveRow);
            assertEquals(FAILED, db.count("SELECT count(*) FROM outbox"), "FAILED rows stay in the outbox");
            if (!mariaDb) {
                assertEquals(0, db.count("SELECT count(*) FROM outbox_archive_default"));
            }
        }
    }

    /** Published rows (keys over 1,000) past a 7-day retention, and FAILED ones as old. */
    private static void insertRows(TestDatabase db, int published) {
        if (db.database() == Database.MARIADB) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers, status, "
                    + "attempts, published_at, created_at) SELECT 'crash', CONCAT('key-', seq % 1000), 'Updated', "
                    + "JSON_OBJECT('id', seq, 'note', REPEAT('x', 200)), JSON_OBJECT('n', seq), 'PUBLISHED', "
                    + "seq % 3, now(6) - INTERVAL 9 DAY + INTERVAL seq * 1000 MICROSECOND, now(6) - INTERVAL 10 DAY "
                    + "FROM seq_1_to_" + published);
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                    + "last_error, created_at) SELECT 'crash', CONCAT('failed-', seq), 'Updated', '{}', 'FAILED', 10, "
                    + "'boom', now(6) - INTERVAL 10 DAY FROM seq_1_to_" + FAILED);
            return;
        }
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers, status, "
                + "attempts, published_at, created_at) SELECT 'crash', 'key-' || (n % 1000), 'Updated', "
                + "jsonb_build_object('id', n, 'note', repeat('x', 200)), jsonb_build_object('n', n), 'PUBLISHED', "
                + "n % 3, now() - interval '9 days' + n * interval '1 millisecond', now() - interval '10 days' "
                + "FROM generate_series(1, ?) n", published);
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                + "last_error, created_at) SELECT 'crash', 'failed-' || n, 'Updated', '{}', 'FAILED', 10, 'boom', "
                + "now() - interval '10 days' FROM generate_series(1, ?) n", FAILED);
    }

    /** Every row in exactly one of the two tables, unchanged. */
    private static void check(TestDatabase db, int published, String outboxRow, String archiveRow) {
        assertEquals(0, db.count("SELECT count(*) FROM outbox_archive a JOIN outbox o ON o.id = a.id"),
                "in both tables");
        assertEquals(0, db.count("SELECT count(*) - count(DISTINCT id) FROM outbox_archive"), "archived twice");
        assertEquals(published + FAILED, db.count("SELECT count(*) FROM (SELECT id, " + outboxRow + " AS digest "
                + "FROM outbox UNION ALL SELECT id, " + archiveRow + " AS digest FROM outbox_archive) r "
                + "JOIN before_crash b ON b.id = r.id AND b.digest = r.digest"), "lost or changed");
        assertEquals(published + FAILED, db.count("SELECT (SELECT count(*) FROM outbox) "
                + "+ (SELECT count(*) FROM outbox_archive)"));
    }

    private static long archived(TestDatabase db) {
        return db.count("SELECT count(*) FROM outbox_archive");
    }

    private static Map<String, String> environment(TestDatabase db) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_DB_USER", db.user());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", "127.0.0.1:1");
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        env.put("OUTBOX_RETENTION", "P7D");
        env.put("OUTBOX_RETENTION_MODE", "archive");
        env.put("OUTBOX_RETENTION_INTERVAL_MS", "1000");
        if (db.database() == Database.MARIADB) {
            // 60 batches of 500: a kill lands among them
            env.put("OUTBOX_RETENTION_BATCH_SIZE", "500");
        }
        return env;
    }
}
