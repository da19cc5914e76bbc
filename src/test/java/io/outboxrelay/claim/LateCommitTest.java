package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An event numbered below what the relay already claimed in its partition: its transaction took its seq first and
 * committed after a later-numbered event of another key (of the same partition) was published. The writers notify
 * nobody (contract §2), and the outbox's sequence moved at the INSERT, long before the commit: with the default
 * wake-up the new-events watch (claim.NewEventsWatch) sees the transactions that wrote the moved values end and looks
 * at every partition again ("settle"); with outbox.wake-up=claim-index it sees the committed row itself. Either way the
 * late event is published at once, not at the next rescan (outbox.poll-delay-ms, a minute here).
 */
@Tag("services")
class LateCommitTest {

    @ParameterizedTest(name = "outbox.wake-up={0}")
    @ValueSource(strings = {"sequence", "claim-index"})
    void anEventCommittedLateWithALowerSeqIsPublishedAtOnce(String wakeUp) throws Exception {
        String type = "late" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:" + topic,
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.poll-delay-ms", "60000");
            settings.put("outbox.wake-up", wakeUp);
            try (RelayInstance relay = RelayInstance.start(settings);
                    Connection slow = db.connect()) {
                // two keys of one partition
                List<Map<String, Object>> keys = db.query("SELECT 'k-' || n AS key FROM generate_series(1, 1000) AS n "
                        + "WHERE outbox_partition(?, 'k-' || n) = outbox_partition(?, 'k-0') LIMIT 1",
                        type, type);
                String sameKeyPartition = (String) keys.get(0).get("key");

                slow.setAutoCommit(false);
                UUID late = UUID.randomUUID();
                try (PreparedStatement insert = slow.prepareStatement("INSERT INTO outbox (id, aggregate_type, "
                        + "aggregate_id, event_type, payload) VALUES (?, ?, 'k-0', 'E', '{}')")) {
                    insert.setObject(1, late);
                    insert.setString(2, type);
                    insert.executeUpdate();
                }
                UUID early = UUID.randomUUID();
                db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, ?, ?, 'E', '{}')", early, type, sameKeyPartition);
                await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, early)));

                slow.commit();
                assertEquals(1, db.count("SELECT count(*) FROM outbox o JOIN outbox e ON e.id = ? "
                        + "WHERE o.id = ? AND o.seq < e.seq AND outbox_partition(o.aggregate_type, o.aggregate_id) "
                        + "= outbox_partition(e.aggregate_type, e.aggregate_id)", early, late),
                        "the late event is numbered below the published one, in its partition");
                await("the late event published well before the next rescan").atMost(Duration.ofSeconds(10))
                        .until(() -> "PUBLISHED".equals(status(db, late)));
            }
            assertEquals(2, SharedKafka.read(topic, 2, Duration.ofSeconds(30)).size());
        }
    }

    /**
     * The plainest late commit: one business transaction writes an event and goes on with its work for a while, and
     * nothing else happens meanwhile (a quiet outbox). The sequence moved at its INSERT; the event becomes visible at
     * its COMMIT, which moves nothing: only the watch's settle (or the committed row itself, with claim-index) can
     * find it before the rescan.
     */
    @ParameterizedTest(name = "outbox.wake-up={0}")
    @ValueSource(strings = {"sequence", "claim-index"})
    void aLoneTransactionThatCommitsLongAfterItsInsertIsPublishedAtOnce(String wakeUp) throws Exception {
        String type = "lone" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:" + topic,
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.poll-delay-ms", "60000");
            settings.put("outbox.wake-up", wakeUp);
            try (RelayInstance relay = RelayInstance.start(settings);
                    Connection slow = db.connect()) {
                // an outbox that has had events (its sequence was used), all published
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, 'k-1', 'E', '{}')", type);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 1);

                slow.setAutoCommit(false);
                UUID late = UUID.randomUUID();
                try (PreparedStatement insert = slow.prepareStatement("INSERT INTO outbox (id, aggregate_type, "
                        + "aggregate_id, event_type, payload) VALUES (?, ?, 'k-2', 'E', '{}')")) {
                    insert.setObject(1, late);
                    insert.setString(2, type);
                    insert.executeUpdate();
                }
                // the transaction's other work: the relay has long looked at the moved sequence meanwhile
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                        .until(() -> db.count("SELECT count(*) FROM outbox WHERE id = ?", late) == 0);
                slow.commit();
                await("the event published well before the next rescan").atMost(Duration.ofSeconds(10))
                        .until(() -> "PUBLISHED".equals(status(db, late)));
            }
            assertEquals(2, SharedKafka.read(topic, 2, Duration.ofSeconds(30)).size());
        }
    }

    private static String status(TestDatabase db, UUID id) {
        return (String) db.query("SELECT status FROM outbox WHERE id = ?", id).get(0).get("status");
    }
}
