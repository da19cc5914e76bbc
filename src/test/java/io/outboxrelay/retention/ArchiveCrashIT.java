package io.outboxrelay.retention;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of the packaged relay in the middle of a large archive run, several times, restarting each time: every row
 * ends up in exactly one of the outbox and its archive, with every column unchanged.
 */
@Tag("services")
class ArchiveCrashIT {

    private static final int PUBLISHED = 300_000;
    private static final int FAILED = 1_000;
    private static final int KILLS = 3;
    /** The row's columns as text, as the archive has them: the outbox's, and the event's partition. */
    private static final String ROW = "md5(concat_ws('|', id, seq, aggregate_type, aggregate_id, event_type, payload, "
            + "headers, created_at, status, attempts, last_error, next_attempt_at, published_at, partition_number))";
    /** The same of a row still in the outbox, which computes its partition from its key (migration V9). */
    private static final String OUTBOX_ROW = ROW.replace("partition_number",
            "outbox_partition(aggregate_type, aggregate_id)");

    @Test
    void killNineWhileArchivingLosesAndDuplicatesNothing() {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(db.url());
            dataSource.setUser("postgres");
            assertTrue(new SchemaMigration(dataSource, TableName.parse("outbox.table", "outbox"), 32, true)
                    .migrateSchema());
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers, status, "
                    + "attempts, published_at, created_at) SELECT 'crash', 'key-' || (n % 1000), 'Updated', "
                    + "jsonb_build_object('id', n, 'note', repeat('x', 200)), jsonb_build_object('n', n), 'PUBLISHED', "
                    + "n % 3, now() - interval '9 days' + n * interval '1 millisecond', now() - interval '10 days' "
                    + "FROM generate_series(1, ?) n", PUBLISHED);
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                    + "last_error, created_at) SELECT 'crash', 'failed-' || n, 'Updated', '{}', 'FAILED', 10, 'boom', "
                    + "now() - interval '10 days' FROM generate_series(1, ?) n", FAILED);
            db.update("CREATE TABLE before_crash AS SELECT id, " + OUTBOX_ROW + " AS digest FROM outbox");
            db.update("VACUUM ANALYZE outbox");

            for (int kill = 1; kill <= KILLS; kill++) {
                long threshold = (long) PUBLISHED * kill / (KILLS + 1);
                try (RelayProcess relay = RelayProcess.startJar(environment(db), "-Dcamel.management.port=0")) {
                    await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                            .until(() -> archived(db) >= threshold || !relay.isAlive());
                    assertTrue(relay.isAlive(), relay.output());
                    relay.kill();
                }
                long archivedAtKill = archived(db);
                System.out.printf("ArchiveCrashIT: kill %d with %d rows archived, %d left in the outbox%n", kill,
                        archivedAtKill, db.count("SELECT count(*) FROM outbox"));
                assertTrue(archivedAtKill < PUBLISHED, "killed in the middle of the run, not after it");
                check(db);
            }
            try (RelayProcess relay = RelayProcess.startJar(environment(db), "-Dcamel.management.port=0")) {
                await().atMost(Duration.ofSeconds(300)).until(() -> archived(db) == PUBLISHED);
            }
            check(db);
            assertEquals(FAILED, db.count("SELECT count(*) FROM outbox"), "FAILED rows stay in the outbox");
            assertEquals(0, db.count("SELECT count(*) FROM outbox_archive_default"));
        }
    }

    /** Every row in exactly one of the two tables, unchanged. */
    private static void check(TestDatabase db) {
        assertEquals(0, db.count("SELECT count(*) FROM outbox o JOIN outbox_archive a USING (id)"), "in both tables");
        assertEquals(0, db.count("SELECT count(*) - count(DISTINCT id) FROM outbox_archive"), "archived twice");
        assertEquals(0, db.count("SELECT count(*) FROM before_crash b WHERE NOT EXISTS "
                + "(SELECT 1 FROM outbox o WHERE o.id = b.id) AND NOT EXISTS "
                + "(SELECT 1 FROM outbox_archive a WHERE a.id = b.id)"), "lost");
        assertEquals(0, db.count("SELECT count(*) FROM before_crash b JOIN (SELECT id, " + OUTBOX_ROW + " AS digest "
                + "FROM outbox UNION ALL SELECT id, " + ROW + " AS digest FROM outbox_archive) r USING (id) "
                + "WHERE r.digest <> b.digest"), "changed");
        assertEquals(PUBLISHED + FAILED, db.count("SELECT (SELECT count(*) FROM outbox) "
                + "+ (SELECT count(*) FROM outbox_archive)"));
    }

    private static long archived(TestDatabase db) {
        return db.count("SELECT count(*) FROM outbox_archive");
    }

    private static Map<String, String> environment(TestDatabase db) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", db.url());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", "127.0.0.1:1");
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        env.put("OUTBOX_RETENTION", "P7D");
        env.put("OUTBOX_RETENTION_MODE", "archive");
        env.put("OUTBOX_RETENTION_INTERVAL_MS", "1000");
        return env;
    }
}
