package io.outboxrelay.claim;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Events that come one at a time, each in a transaction of its own, with the relay idle in between (its watch at its
 * slowest pace): each is found by the wake-up, not by the safety-net poll (a minute here). Whether the watch's look
 * falls before the INSERT, between the INSERT and the commit (the sequence moved, the row is not visible yet: a commit
 * waits for its WAL flush) or after the commit, each event is published within 3 seconds, and the median event within
 * 250 ms of its INSERT (the watch looks every 25 ms when idle).
 */
@Tag("services")
class SparseEventsTest {

    private static final int EVENTS = 30;

    @ParameterizedTest(name = "outbox.wake-up={0}")
    @ValueSource(strings = {"sequence", "claim-index"})
    void eachOfSparseEventsIsPublishedAtOnce(String wakeUp) {
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "mock:sparse", "127.0.0.1:1");
            settings.put("outbox.poll-delay-ms", "60000");
            settings.put("outbox.wake-up", wakeUp);
            // an outbox that has had an event: the first event of a new outbox is NewEventsWatchTest's
            PGSimpleDataSource dataSource = new PGSimpleDataSource();
            dataSource.setURL(db.url());
            dataSource.setUser("postgres");
            assertTrue(new SchemaMigration(dataSource, TableName.parse("outbox.table", "outbox"), 32, true)
                    .migrateSchema());
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "VALUES ('order', 'o-first', 'Placed', '{}')");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 1);
                for (int i = 0; i < EVENTS; i++) {
                    UUID id = UUID.randomUUID();
                    // the writer's pace, not a wait for a condition: the relay idles between two events, its watch
                    // slows down to outbox.wake-up.max-interval-ms, and its looks fall anywhere around the next INSERT
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50 + 7 * i % 30));
                    db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                            + "VALUES (?, 'order', ?, 'Placed', '{}')", id, "o-" + i);
                    int event = i;
                    await("event " + event + " of " + EVENTS + " published by a wake-up, not the poll")
                            .atMost(Duration.ofSeconds(3))
                            .until(() -> db.count("SELECT count(*) FROM outbox WHERE id = ? AND status = 'PUBLISHED'",
                                    id) == 1);
                }
                Map<String, Object> latency = db.query("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) "
                        + "AS median, max(ms) AS max FROM (SELECT extract(epoch FROM published_at - created_at) * 1000 "
                        + "AS ms FROM outbox WHERE aggregate_id <> 'o-first') l").get(0);
                System.out.println("SparseEventsTest " + wakeUp + ": INSERT to PUBLISHED, ms: " + latency);
                // an idle watch looks every outbox.wake-up.max-interval-ms (25): a typical event is out in tens of
                // milliseconds (a watch that only woke the claims once a second would be at about 500)
                double median = ((Number) latency.get("median")).doubleValue();
                assertTrue(median < 250, "median INSERT to PUBLISHED " + median + " ms");
            }
        }
    }
}
