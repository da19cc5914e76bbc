package io.outboxrelay.failure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.Payloads;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.SlowEndpoint;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.TestDatabases;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * outbox.failed-blocks-key: once an event is FAILED, later events of its key go on (false) or stay held until it is
 * replayed or deleted (true); outbox_keys_held_back counts the held keys. Other keys flow either way. On PostgreSQL and
 * MariaDB.
 */
@Tag("services")
class FailedBlocksKeyTest {

    static Stream<Arguments> databasesAndFailedBlocksKey() {
        return TestDatabases.cases(Arguments.of(Database.POSTGRESQL, false), Arguments.of(Database.POSTGRESQL, true),
                Arguments.of(Database.MARIADB, false), Arguments.of(Database.MARIADB, true));
    }

    @ParameterizedTest(name = "{0}, outbox.failed-blocks-key={1}")
    @MethodSource("databasesAndFailedBlocksKey")
    void laterEventsOfAFailedKey(Database database, boolean failedBlocksKey) throws Exception {
        String type = typeWithSmallTopic("fbk");
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = failOnFirstAttempt(db);
            settings.put("outbox.failed-blocks-key", Boolean.toString(failedBlocksKey));
            settings.put("outbox.metrics.refresh-ms", "200");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                UUID poison = insert(db, type, "k", Payloads.tooBig(200_000));
                UUID next = insert(db, type, "k", "{}");
                await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(status(db, poison)));

                // another key inserted afterwards is published: the relay has polled since the failure
                UUID otherKey = insert(db, type, "other", "{}");
                await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, otherKey)));
                if (!failedBlocksKey) {
                    await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, next)));
                    return;
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> metric(relay, "outbox_keys_held_back") == 1.0);
                assertEquals("PENDING", status(db, next), "held behind the FAILED event");

                db.update("DELETE FROM outbox WHERE id = ?", poison);
                await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, next)));
                await().atMost(Duration.ofSeconds(30)).until(() -> metric(relay, "outbox_keys_held_back") == 0.0);
            }
        }
    }

    /**
     * The claim looks for heads among the oldest claimable events only (4 x batch-size), unless none of them is a
     * head: a held key with more waiting events than that must not stall the keys behind it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#both")
    void aHeldKeyWithALongBacklogDoesNotStallOtherKeys(Database database) throws Exception {
        String type = typeWithSmallTopic("fbl");
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = failOnFirstAttempt(db);
            settings.put("outbox.failed-blocks-key", "true");
            settings.put("outbox.batch-size", "5");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                UUID poison = insert(db, type, "k", Payloads.tooBig(200_000));
                await().atMost(Duration.ofSeconds(30)).until(() -> "FAILED".equals(status(db, poison)));
                for (int i = 0; i < 40; i++) {
                    insert(db, type, "k", "{}");
                }
                UUID otherKey = insert(db, type, "other", "{}");

                await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, otherKey)));
                assertEquals(40, db.count("SELECT count(*) FROM outbox WHERE aggregate_id = 'k' "
                        + "AND status = 'PENDING'"),
                        "the held key's events wait behind its FAILED event");
            }
        }
    }

    /**
     * The failed event and a later event of its key claimed together: the later one is given back unsent, also when
     * the claim loop marks acknowledged events between the two (a slow destination, one event at a time).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#both")
    void aLaterEventOfTheKeyInTheSameClaimWaits(Database database) throws Exception {
        String type = typeWithSmallTopic("fbc");
        SlowEndpoint slow = SlowEndpoint.delayingEachEvent(50);
        try (TestDatabase db = TestDatabase.create(database)) {
            Map<String, String> settings = slow.settings(db, "relay-slow");
            settings.put("outbox.max-attempts", "1");
            settings.put("outbox.failed-blocks-key", "true");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                // one transaction, so one claim: an event of another key is acknowledged (and due to be marked)
                // before the poison fails
                UUID next = UUID.randomUUID();
                db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES "
                        + "(?, ?, 'other', 'E', '{}'), (?, ?, 'k', 'E', " + db.json() + "), (?, ?, 'k', 'E', '{}')",
                        UUID.randomUUID(), type, UUID.randomUUID(), type, Payloads.tooBig(200_000), next, type);
                await().atMost(Duration.ofSeconds(30)).until(() -> db.count(
                        "SELECT count(*) FROM outbox WHERE aggregate_id = 'k' AND status = 'FAILED'") == 1);
                UUID otherKey = insert(db, type, "other", "{}");
                await().atMost(Duration.ofSeconds(30)).until(() -> "PUBLISHED".equals(status(db, otherKey)));

                assertEquals(List.of(Map.of("status", "PENDING", "attempts", 0)), db.query(
                        "SELECT status, attempts FROM outbox WHERE id = ?", next),
                        "the event after the FAILED one waits, unsent");
            }
            assertEquals(2, SharedKafka.read("outbox.event." + type, 2, Duration.ofSeconds(30)).size());
        }
    }

    /** An aggregate type whose topic refuses records over 128 KB, so a too-big payload fails at the broker. */
    private static String typeWithSmallTopic(String prefix) {
        String type = prefix + UUID.randomUUID().toString().substring(0, 8);
        SharedKafka.broker().createTopic("outbox.event." + type, 1, Map.of("max.message.bytes", "131072"));
        return type;
    }

    private static Map<String, String> failOnFirstAttempt(TestDatabase db) {
        Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                SharedKafka.broker().bootstrapServers());
        settings.put("outbox.max-attempts", "1");
        return settings;
    }

    private static UUID insert(TestDatabase db, String type, String key, String payload) {
        UUID id = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, ?, ?, 'E', " + db.json() + ")",
                id, type, key, payload);
        return id;
    }

    private static String status(TestDatabase db, UUID id) {
        return (String) db.query("SELECT status FROM outbox WHERE id = ?", id).get(0).get("status");
    }

    private static double metric(RelayInstance relay, String name) throws Exception {
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + relay.managementPort() + "/observe/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        String line = body.lines().filter(l -> l.startsWith(name + " ")).findFirst().orElse(null);
        assertTrue(line != null, name + " missing from:\n" + body);
        return Double.parseDouble(line.substring(name.length() + 1));
    }
}
