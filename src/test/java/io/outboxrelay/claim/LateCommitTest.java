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
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An event numbered below what the relay already claimed in its partition: its transaction took its seq first and
 * committed after a later-numbered event of another key (of the same partition) was published. Its insert
 * notification makes the relay read the partition again from that seq: it is published at once, not at the next
 * rescan (outbox.poll-delay-ms, a minute here).
 */
@Tag("services")
class LateCommitTest {

    @Test
    void anEventCommittedLateWithALowerSeqIsPublishedAtOnce() throws Exception {
        String type = "late" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:" + topic,
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.poll-delay-ms", "60000");
            try (RelayInstance relay = RelayInstance.start(settings);
                    Connection slow = db.connect()) {
                // two keys of one partition
                List<Map<String, Object>> keys = db.query("SELECT 'k-' || n AS key FROM generate_series(1, 1000) AS n "
                        + "WHERE outbox_partition_of(?, 'k-' || n, 32) = outbox_partition_of(?, 'k-0', 32) LIMIT 1",
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
                        + "WHERE o.id = ? AND o.seq < e.seq AND o.partition_number = e.partition_number", early, late),
                        "the late event is numbered below the published one, in its partition");
                await("the late event published well before the next rescan").atMost(Duration.ofSeconds(10))
                        .until(() -> "PUBLISHED".equals(status(db, late)));
            }
            assertEquals(2, SharedKafka.read(topic, 2, Duration.ofSeconds(30)).size());
        }
    }

    private static String status(TestDatabase db, UUID id) {
        return (String) db.query("SELECT status FROM outbox WHERE id = ?", id).get(0).get("status");
    }
}
