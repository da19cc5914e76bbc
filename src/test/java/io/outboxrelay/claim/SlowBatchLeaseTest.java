package io.outboxrelay.claim;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SlowEndpoint;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Events that take three times their lease to send (a slow destination) keep their owner: their leases (and their
 * partitions') are renewed while they are worked on, so the second relay on the table never claims them, none is
 * sent twice, and no row is ever seen leased to two relays.
 */
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
                        + "SELECT ?, 'key-' || (n % 2), 'E', jsonb_build_object('n', n) FROM generate_series(1, 40) AS n",
                        type);
                Map<Object, Set<Object>> owners = new HashMap<>();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    db.query("SELECT id, lease_owner FROM outbox WHERE lease_owner IS NOT NULL")
                            .forEach(row -> owners.computeIfAbsent(row.get("id"), id -> new HashSet<>())
                                    .add(row.get("lease_owner")));
                    return db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 40;
                });
                assertEquals(List.of(), owners.values().stream().filter(o -> o.size() > 1).toList(),
                        "rows leased to two relays");
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
