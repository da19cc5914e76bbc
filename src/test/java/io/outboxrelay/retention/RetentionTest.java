package io.outboxrelay.retention;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Retention deletes PUBLISHED rows older than outbox.retention, in bounded batches, and nothing else. */
class RetentionTest {

    @Test
    void deletesOnlyOldPublishedRows() {
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1");
            settings.put("outbox.retention", "P7D");
            settings.put("outbox.retention.interval-ms", "1000");
            // smaller than the number of old rows: several statements are needed
            settings.put("outbox.retention.batch-size", "2");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                insert(db, "old-published", "PUBLISHED", "now() - interval '8 days'", 5);
                insert(db, "recent-published", "PUBLISHED", "now() - interval '6 days'", 2);
                insert(db, "old-failed", "FAILED", "NULL", 2);
                db.update("UPDATE outbox SET created_at = now() - interval '30 days'");
                await().atMost(Duration.ofSeconds(30)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'old-published'") == 0);
            }
            Map<String, Long> left = db.query("SELECT aggregate_id, count(*) AS n FROM outbox GROUP BY aggregate_id")
                    .stream().collect(Collectors.toMap(r -> (String) r.get("aggregate_id"), r -> (Long) r.get("n")));
            assertEquals(Map.of("recent-published", 2L, "old-failed", 2L), left);
        }
    }

    private static void insert(TestDatabase db, String key, String status, String publishedAt, int rows) {
        for (int i = 0; i < rows; i++) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                    + "VALUES ('t', ?, 'E', '{}', ?, " + publishedAt + ")", key, status);
        }
    }
}
