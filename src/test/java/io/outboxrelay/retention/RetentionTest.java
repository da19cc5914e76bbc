package io.outboxrelay.retention;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Retention deletes PUBLISHED rows older than outbox.retention, in bounded batches, and nothing else (on PostgreSQL
 * and MariaDB); each batch reads the published_at index, not the table (its time at 2 million rows is in bench/: the
 * retention scenario).
 */
@Tag("services")
class RetentionTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(Database.class)
    void deletesOnlyOldPublishedRows(Database database) {
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1");
            settings.put("outbox.retention", "P7D");
            settings.put("outbox.retention.interval-ms", "1000");
            // smaller than the number of old rows: several statements are needed
            settings.put("outbox.retention.batch-size", "2");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                insert(db, "old-published", "PUBLISHED", daysAgo(db, 8), 5);
                insert(db, "recent-published", "PUBLISHED", daysAgo(db, 6), 2);
                insert(db, "old-failed", "FAILED", "NULL", 2);
                db.update("UPDATE outbox SET created_at = " + daysAgo(db, 30));
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'old-published'") == 0);
            }
            Map<String, Long> left = db.query("SELECT aggregate_id, count(*) AS n FROM outbox GROUP BY aggregate_id")
                    .stream().collect(Collectors.toMap(r -> (String) r.get("aggregate_id"), r -> (Long) r.get("n")));
            assertEquals(Map.of("recent-published", 2L, "old-failed", 2L), left);
        }
    }

    @Test
    void eachBatchReadsTheOldestRowsThroughTheIndexWithoutScanningTheTable() {
        try (TestDatabase db = TestDatabase.create()) {
            String delete;
            // the relay creates the schema and resolves its statement; it is stopped before the rows exist, so its
            // own retention pass does not run meanwhile
            try (RelayInstance relay = RelayInstance.start(RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1"))) {
                delete = relay.context().getRegistry().lookupByNameAndType("sql.delete-expired", String.class)
                        // the values camel-sql binds, for plain JDBC and EXPLAIN
                        .replace(":#${bean:relaySettings.retentionInterval}", "'P7D'")
                        .replace(":#${bean:relaySettings.retentionBatchSize}", "5000");
            }
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                    + "SELECT 't', 'k' || (n % 100), 'E', '{}', 'PUBLISHED', now() - interval '30 days' "
                    + "+ n * interval '1 second' FROM generate_series(1, 100000) AS n");
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "SELECT 't', 'k' || (n % 100), 'E', '{}' FROM generate_series(1, 10000) AS n");
            db.update("VACUUM ANALYZE outbox");

            String plan = db.query("EXPLAIN " + delete).stream().map(r -> (String) r.get("QUERY PLAN"))
                    .collect(Collectors.joining("\n"));
            assertTrue(plan.contains("Index Scan using outbox_published_at_idx"), plan);
            assertTrue(!plan.contains("Seq Scan"), plan);

            // the oldest batch goes first, and only that many rows (inserted in published_at order: seq tells them)
            long newestOfBatch = db.count("SELECT max(seq) FROM (SELECT seq FROM outbox WHERE status = 'PUBLISHED' "
                    + "ORDER BY published_at LIMIT 5000) oldest");
            assertEquals(5000, db.update(delete));
            assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED' AND seq <= ?",
                    newestOfBatch));
            assertEquals(95000, db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED' AND seq > ?",
                    newestOfBatch));
            assertEquals(10000, db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'"));
        }
    }

    private static String daysAgo(TestDatabase db, int days) {
        return db.database() == Database.MARIADB ? "now(6) - INTERVAL " + days + " DAY"
                : "now() - interval '" + days + " days'";
    }

    private static void insert(TestDatabase db, String key, String status, String publishedAt, int rows) {
        for (int i = 0; i < rows; i++) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                    + "VALUES ('t', ?, 'E', '{}', ?, " + publishedAt + ")", key, status);
        }
    }
}
