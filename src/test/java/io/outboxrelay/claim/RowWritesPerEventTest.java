package io.outboxrelay.claim;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One row write per event on the happy path: a drain of 5,000 events over 100 keys through the real relay and Kafka
 * updates the outbox's rows exactly 5,000 times (PostgreSQL's own count, pg_stat_user_tables.n_tup_upd): the mark,
 * nothing at claim time.
 */
@Tag("services")
class RowWritesPerEventTest {

    private static final int EVENTS = 5_000;

    @Test
    void aDrainWritesEachRowOnce() {
        String type = "rw" + UUID.randomUUID().toString().substring(0, 8);
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.batch-size", "400");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                long before = updates(db);
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "SELECT ?, 'key-' || (n % 100), 'E', jsonb_build_object('n', n) FROM generate_series(1, ?) n",
                        type, EVENTS);
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == EVENTS);
                // the relay's backends report their counts within a second or so of their last statement
                await().atMost(Duration.ofSeconds(20)).until(() -> updates(db) - before >= EVENTS);
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                        .until(() -> updates(db) - before == EVENTS);
                assertEquals(EVENTS, updates(db) - before, "row updates for " + EVENTS + " published events");
            }
            assertEquals(EVENTS, SharedKafka.read("outbox.event." + type, EVENTS, Duration.ofSeconds(30)).size());
        }
    }

    private static long updates(TestDatabase db) {
        return db.count("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox'");
    }
}
