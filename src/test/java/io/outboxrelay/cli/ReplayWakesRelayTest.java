package io.outboxrelay.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * End to end: FAILED events replayed with the command are published by a running relay at once. The relay's
 * safety-net poll is set to 10 minutes, so only the replay's wake-up can wake it in time: the replay moves the outbox's
 * sequence, which the relay watches by default (claim.NewEventsWatch), and notifies the table's channel, which a relay
 * with outbox.wake-up=notify LISTENs on (claim.InsertListener); on MariaDB it moves the replay counter the relay's
 * watch adds to the largest seq (claim.MariadbOutboxWatch). A replay by plain SQL (an UPDATE, which moves neither)
 * shows that the relay would otherwise not have looked.
 */
@Tag("services")
class ReplayWakesRelayTest {

    /** PostgreSQL with either wake-up; MariaDB, whose relays watch the largest seq and the replay counter. */
    static Stream<Arguments> databasesAndWakeUps() {
        return Stream.of(Arguments.of(Database.POSTGRESQL, "sequence"), Arguments.of(Database.POSTGRESQL, "notify"),
                Arguments.of(Database.MARIADB, "sequence"));
    }

    @ParameterizedTest(name = "{0}, outbox.wake-up={1}")
    @MethodSource("databasesAndWakeUps")
    void replayedEventsArePublishedByARunningRelayWithoutWaitingForItsPoll(Database database, String wakeUp) {
        String type = "cli" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        SharedKafka.broker().createTopic(topic, 1, Map.of());
        try (TestDatabase db = TestDatabase.create(database)) {
            CliFixture outbox = new CliFixture(db, "outbox").migrate();
            UUID byHand = outbox.insert(type + "/a", "FAILED");
            UUID first = outbox.insert(type + "/b", "FAILED");
            UUID second = outbox.insert(type + "/b", "FAILED");
            UUID untouched = outbox.insert(type + "/c", "FAILED");

            Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                    SharedKafka.broker().bootstrapServers());
            settings.put("outbox.poll-delay-ms", "600000");
            settings.put("outbox.wake-up", wakeUp);
            try (RelayInstance relay = RelayInstance.start(settings)) {
                // the relay's first poll (a second after its start) finds nothing claimable; then it waits
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                        .until(() -> db.count("SELECT count(*) FROM outbox WHERE status = 'FAILED'") == 4);
                db.update("UPDATE outbox SET status = 'PENDING', attempts = 0, next_attempt_at = " + db.nowPlus(0)
                        + " WHERE id = ?", byHand);
                // an UPDATE alone does not wake the relay: the row stays PENDING
                await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                        .until(() -> "PENDING".equals(outbox.status(byHand)));

                CliFixture.Result result = outbox.run("replay", "--key", type + "/b");
                assertEquals(0, result.exit(), result.toString());
                await().atMost(Duration.ofSeconds(10)).until(() -> "PUBLISHED".equals(outbox.status(second)));
                assertEquals("PUBLISHED", outbox.status(first));
                // the wake-up woke a claim of every due row, also the one replayed by hand
                await().atMost(Duration.ofSeconds(5)).until(() -> "PUBLISHED".equals(outbox.status(byHand)));
                assertEquals("FAILED", outbox.status(untouched));
            }
            List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(topic, 3, Duration.ofSeconds(20));
            assertEquals(Set.of(byHand.toString(), first.toString(), second.toString()),
                    records.stream().map(r -> SharedKafka.headers(r).get("ce_id")).collect(Collectors.toSet()));
            assertEquals(3, records.size());
            List<String> keyB = records.stream().filter(r -> r.key().equals("b"))
                    .map(r -> SharedKafka.headers(r).get("ce_id")).toList();
            assertEquals(List.of(first.toString(), second.toString()), keyB, "in order");
        }
    }
}
