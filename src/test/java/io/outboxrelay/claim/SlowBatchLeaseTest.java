package io.outboxrelay.claim;

import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * A claim that takes three times the lease to send (a slow destination) keeps its partitions: their leases are
 * renewed by the heartbeat while it is worked on, and a partition being handed to the second relay is given up only
 * once its claim is over, so the second relay never claims those events: none is sent twice, none out of order.
 */
@Tag("services")
class SlowBatchLeaseTest {

    @Test
    void aBatchSlowerThanItsLeaseIsSentByOneInstanceOnly() {
        String type = "slow" + UUID.randomUUID().toString().substring(0, 8);
        SlowEndpoint slow = SlowEndpoint.delayingEachEvent(300);
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayInstance a = RelayInstance.start(settings(slow, db, "relay-a"));
                    RelayInstance b = RelayInstance.start(settings(slow, db, "relay-b"))) {
                // two keys of 20 events: 20 rounds of 300 ms, one batch of about 6 s against a lease of 2 s
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "SELECT ?, 'key-' || (n % 2), 'E', jsonb_build_object('n', n) "
                        + "FROM generate_series(1, 40) AS n",
                        type);
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                        .until(() -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 40);
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(30));
            assertEquals(0, report.missing(), report.toString());
            assertEquals(0, report.duplicates(), report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }

    private static Map<String, String> settings(SlowEndpoint slow, TestDatabase db, String instanceId) {
        Map<String, String> s = slow.settings(db, instanceId);
        s.put("outbox.lease", "PT2S");
        s.put("outbox.instance.heartbeat", "PT0.5S");
        s.put("outbox.instance.stale-after", "PT2S");
        return s;
    }
}
