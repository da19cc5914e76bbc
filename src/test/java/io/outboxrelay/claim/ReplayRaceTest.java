package io.outboxrelay.claim;

import java.time.Duration;
import java.util.UUID;

import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SlowEndpoint;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A FAILED event is replayed while the later events of its key (which went on, outbox.failed-blocks-key=false) are
 * claimed by one relay and being sent: the replayed event waits for that claim to end (its partition is granted to
 * one claim at a time) and is then published once; none is sent twice.
 */
@Tag("services")
class ReplayRaceTest {

    @Test
    void aReplayWhileLaterEventsOfItsKeyAreInFlightCreatesNoSecondOwner() {
        String type = "replay" + UUID.randomUUID().toString().substring(0, 8);
        SlowEndpoint slow = SlowEndpoint.delayingEachEvent(500);
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayInstance a = RelayInstance.start(slow.settings(db, "relay-a"));
                    RelayInstance b = RelayInstance.start(slow.settings(db, "relay-b"))) {
                UUID failed = UUID.randomUUID();
                db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, status, "
                        + "attempts, last_error) VALUES (?, ?, 'k', 'E', '{\"n\": 0}', 'FAILED', 10, "
                        + "'rejected earlier')", failed, type);
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "SELECT ?, 'k', 'E', jsonb_build_object('n', n) FROM generate_series(1, 8) AS n", type);
                // one relay claimed the key's eight later events, and sends one every 500 ms
                await().atMost(Duration.ofSeconds(30)).until(() -> a.counter("outbox.events.claimed")
                        + b.counter("outbox.events.claimed") >= 8);
                assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'"), "still in flight");

                db.update("UPDATE outbox SET status = 'PENDING', attempts = 0, next_attempt_at = now() "
                        + "WHERE status = 'FAILED'");
                await().atMost(Duration.ofSeconds(60)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 9);
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(30));
            assertEquals(0, report.missing(), report.toString());
            assertEquals(0, report.duplicates(), report.toString());
        }
    }
}
