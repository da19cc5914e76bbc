package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.outboxrelay.support.Payloads;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One incompressible 40 KB event among small events of other keys, on a topic whose max.message.bytes (10,000) is
 * below the producer's batch size (the relay's default 65,536): the broker's rejection is the big event's alone.
 * No other event gets an attempt, a last_error or FAILED; other keys keep flowing; the relay's log stays a few lines
 * per rejection (the Kafka producer, left to itself, splits and retries such a batch until its delivery timeout and
 * logs every try). Run with lz4 and without compression, through the packaged jar with its own logging settings.
 */
class OversizedEventIT {

    private static final int MAX_ATTEMPTS = 2;
    /**
     * Log lines the relay may write per failed attempt of the big event: its own WARN, and at most one more (the
     * producer's split of a batch, or the line telling the topic's batch size, once per topic).
     */
    private static final int LOG_LINES_PER_ATTEMPT = 2;

    @ParameterizedTest(name = "compression {0}, failed-blocks-key {1}")
    @CsvSource({"lz4, false", "none, false", "lz4, true"})
    void anEventTheBrokerRejectsFailsAlone(String compression, boolean failedBlocksKey) {
        String type = "big" + UUID.randomUUID().toString().substring(0, 8);
        String topic = "outbox.event." + type;
        // one partition: the big event and its neighbours share the producer's batches
        SharedKafka.broker().createTopic(topic, 1, Map.of("max.message.bytes", "10000"));
        UUID big = UUID.randomUUID();
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> env = FaultTestSettings.environment(db, SharedKafka.broker().bootstrapServers(), "big");
            env.put("OUTBOX_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
            env.put("OUTBOX_BACKOFF_INITIAL", "PT1S");
            env.put("OUTBOX_REDELIVERY_DELAY_MS", "10");
            env.put("OUTBOX_FAILED_BLOCKS_KEY", Boolean.toString(failedBlocksKey));
            env.put("OUTBOX_LEASE", "PT60S");
            env.put("CAMEL_COMPONENT_KAFKA_COMPRESSION_CODEC", compression);
            try (RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort())) {
                relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
                int logLinesAtStart = relay.output().split("\n").length;

                insertSmall(db, type, 0, 40);
                insert(db, big, type, "big-key", Payloads.tooBig(40_000));
                UUID afterBig = insert(db, UUID.randomUUID(), type, "big-key", "{\"after\": true}");
                insertSmall(db, type, 40, 80);

                await("the big event's first attempt recorded").atMost(Duration.ofSeconds(30))
                        .until(() -> (int) row(db, big).get("attempts") >= 1);
                // other keys keep flowing: events written after the rejection are published within seconds
                insertSmall(db, type, 80, 120);
                await("later events of other keys published").atMost(Duration.ofSeconds(10)).until(() -> db.count(
                        "SELECT count(*) FROM outbox WHERE aggregate_id LIKE 'small-%' "
                                + "AND status = 'PUBLISHED'") == 120);
                await("the big event FAILED").atMost(Duration.ofSeconds(30))
                        .until(() -> "FAILED".equals(row(db, big).get("status")));

                Map<String, Object> failed = row(db, big);
                assertEquals(MAX_ATTEMPTS, failed.get("attempts"));
                assertTrue(((String) failed.get("last_error")).contains("RecordTooLargeException"), failed.toString());
                assertEquals(List.of(), db.query("SELECT id, status, attempts, last_error FROM outbox "
                                + "WHERE id <> ? AND (attempts > 0 OR last_error IS NOT NULL "
                                + "OR status = 'FAILED')", big),
                        "no other event got an attempt, an error or FAILED");
                if (failedBlocksKey) {
                    assertEquals("PENDING", row(db, afterBig).get("status"), "only the rejected event's key waits");
                } else {
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> "PUBLISHED".equals(row(db, afterBig).get("status")));
                }

                List<String> logLines = List.of(relay.output().split("\n"));
                // what the start still prints after "started" (the HTTP endpoints, the first heartbeat's partitions) is
                // not the rejection's
                List<String> relayLog = logLines.subList(logLinesAtStart, logLines.size()).stream()
                        .filter(line -> !line.contains("MainHttpServerUtil")
                                && !line.contains("PartitionGrants - Partitions:"))
                        .toList();
                System.out.printf("OversizedEventIT (%s, failed-blocks-key %s): %d log lines for %d attempts:%n%s%n",
                        compression, failedBlocksKey, relayLog.size(), MAX_ATTEMPTS,
                        String.join("\n", relayLog.subList(0, Math.min(20, relayLog.size()))));
                assertTrue(relayLog.size() <= MAX_ATTEMPTS * LOG_LINES_PER_ATTEMPT,
                        relayLog.size() + " log lines for " + MAX_ATTEMPTS + " attempts");
            }

            List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(topic, 121 - (failedBlocksKey ? 1 : 0),
                    Duration.ofSeconds(30));
            Set<String> delivered = new HashSet<>();
            records.forEach(r -> assertTrue(delivered.add(SharedKafka.headers(r).get("ce_id")), "duplicate " + r));
            assertEquals(db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'"), delivered.size());
            assertTrue(!delivered.contains(big.toString()), "the big event never reached the topic");
        }
    }

    private static void insertSmall(TestDatabase db, String type, int from, int to) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                + "SELECT ?, 'small-' || (n % 10), 'E', jsonb_build_object('n', n) FROM generate_series(?, ?) AS n",
                type, from, to - 1);
    }

    private static UUID insert(TestDatabase db, UUID id, String type, String key, String payload) {
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, ?, ?, 'E', ?::jsonb)",
                id, type, key, payload);
        return id;
    }

    private static Map<String, Object> row(TestDatabase db, UUID id) {
        return db.query("SELECT status, attempts, last_error FROM outbox WHERE id = ?", id).get(0);
    }
}
