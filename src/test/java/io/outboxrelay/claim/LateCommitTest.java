package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

    /** PostgreSQL with either wake-up; MariaDB (where both watch the largest committed seq, and its writers). */
    static Stream<Arguments> databasesAndWakeUps() {
        return Stream.of(Arguments.of(Database.POSTGRESQL, "sequence"),
                Arguments.of(Database.POSTGRESQL, "claim-index"), Arguments.of(Database.MARIADB, "sequence"));
    }

    @ParameterizedTest(name = "{0}, outbox.wake-up={1}")
    @MethodSource("databasesAndWakeUps")
    void anEventCommittedLateWithALowerSeqIsPublishedAtOnce(Database database, String wakeUp) throws Exception {
        String type = "late" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = RelayInstance.settings(db, "kafka:" + topic,
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.poll-delay-ms", "60000");
            settings.put("outbox.wake-up", wakeUp);
            try (RelayInstance relay = RelayInstance.start(settings);
                    Connection slow = db.connect()) {
                // two keys of one partition
                String sameKeyPartition = keyOfTheSamePartition(db, type, "k-0");

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
                        + "WHERE o.id = ? AND o.seq < e.seq AND " + partition(db, "o") + " = " + partition(db, "e"),
                        early, late),
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
    @ParameterizedTest(name = "{0}, outbox.wake-up={1}")
    @MethodSource("databasesAndWakeUps")
    void aLoneTransactionThatCommitsLongAfterItsInsertIsPublishedAtOnce(Database database, String wakeUp)
            throws Exception {
        String type = "lone" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create(database)) {
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

    /** Another key of the same aggregate type in the same partition as the given one. */
    private static String keyOfTheSamePartition(TestDatabase db, String type, String key) {
        if (db.database() == Database.MARIADB) {
            // the stored partition_number's expression (migration mariadb/V1), 32 partitions by default
            return (String) db.query("WITH RECURSIVE s AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM s WHERE n < 1000) "
                    + "SELECT concat('k-', n) AS k FROM s WHERE mod(crc32(concat(?, '/k-', n)), 32) "
                    + "= mod(crc32(concat(?, '/', ?)), 32) LIMIT 1", type, type, key).get(0).get("k");
        }
        return (String) db.query("SELECT 'k-' || n AS k FROM generate_series(1, 1000) AS n "
                + "WHERE outbox_partition(?, 'k-' || n) = outbox_partition(?, ?) LIMIT 1", type, type, key)
                .get(0).get("k");
    }

    private static String partition(TestDatabase db, String alias) {
        return db.database() == Database.MARIADB ? alias + ".partition_number"
                : "outbox_partition(" + alias + ".aggregate_type, " + alias + ".aggregate_id)";
    }

    private static String status(TestDatabase db, UUID id) {
        return (String) db.query("SELECT status FROM outbox WHERE id = ?", id).get(0).get("status");
    }
}
