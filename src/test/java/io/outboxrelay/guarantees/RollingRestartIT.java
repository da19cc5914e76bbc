package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.EmbeddedArtemis;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.TestDatabases;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rolling update under load, as Kubernetes runs one: a 100,000-event backlog drains through three relay processes
 * with the default lease and heartbeat, and each process is stopped with SIGTERM and replaced, one after another,
 * twice. A stop costs nothing: every process exits 0 within 10 s of its SIGTERM, no event gets an attempt, none is
 * sent twice, none is missing, and each key's events are first delivered in seq order. Kafka and JMS (Artemis).
 * <p>
 * The Kafka drain is held to a pace the rolls can keep up with by settings only (one claim of 50 events at a time, a
 * 40 ms linger), so that every SIGTERM lands while its instance drains; the JMS one runs at the default settings.
 * <p>
 * On MariaDB with -Dtest.database=MARIADB, left out of the suite for time (it took ~175 s there): each instance
 * replaced once, not twice, in the same drain (three rolls where PostgreSQL's outlasts six). It proves the same: every
 * SIGTERM meets an instance that drains and owns partitions, and costs nothing.
 */
class RollingRestartIT {

    private static final int EVENTS = 100_000;
    private static final int KEYS = 2_000;
    private static final int INSTANCES = 3;
    private static final int ROUNDS = 2;
    private static final int MARIADB_ROUNDS = 1;
    private static final Duration STOP_WITHIN = Duration.ofSeconds(10);

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("databasesAndTransports")
    void rollingEveryInstanceMidDrainCostsNoAttemptNoDuplicateNoLoss(Database database, String transport)
            throws Exception {
        String type = "roll" + UUID.randomUUID().toString().substring(0, 8);
        int rounds = database == Database.MARIADB ? MARIADB_ROUNDS : ROUNDS;
        try (TestDatabase db = TestDatabase.create(database); EmbeddedArtemis artemis = transport.equals("jms")
                ? EmbeddedArtemis.start() : null) {
            Map<String, String> env = environment(db, transport, type, artemis);
            List<RelayProcess> relays = new ArrayList<>();
            List<String> stops = new ArrayList<>();
            try {
                for (int i = 0; i < INSTANCES; i++) {
                    relays.add(start(env, "roll-" + i + "-0"));
                }
                FaultTestSettings.insertBulk(db, type, EVENTS, KEYS);
                long inserted = System.nanoTime();
                for (int round = 1; round <= rounds; round++) {
                    for (int i = 0; i < INSTANCES; i++) {
                        long pending = pending(db);
                        long owned = db.count("SELECT count(*) FROM outbox_partitions WHERE owner LIKE ?",
                                "roll-" + i + "-%");
                        RelayProcess stopping = relays.get(i);
                        long signalled = System.nanoTime();
                        stopping.terminate();
                        int exit = stopping.waitForExit(Duration.ofSeconds(40));
                        long stoppedMillis = (System.nanoTime() - signalled) / 1_000_000;
                        stops.add("instance %d round %d: %d pending, %d partitions owned, exit %d after %d ms"
                                .formatted(i, round, pending, owned, exit, stoppedMillis));
                        assertEquals(0, exit, stopping.output());
                        assertTrue(stoppedMillis <= STOP_WITHIN.toMillis(), stops + "\n" + stopping.output());
                        assertTrue(pending > 0 && owned > 0, "the SIGTERM came while the instance drained: " + stops);
                        relays.set(i, start(env, "roll-" + i + "-" + round));
                    }
                }
                await().atMost(Duration.ofSeconds(180)).until(() -> pending(db) == 0);
                stops.add("drained %d s after the insert".formatted((System.nanoTime() - inserted) / 1_000_000_000));
                relays.forEach(RelayProcess::terminate);
                for (RelayProcess relay : relays) {
                    assertEquals(0, relay.waitForExit(Duration.ofSeconds(40)), relay.output());
                }
                assertEquals(0, db.count("SELECT count(*) FROM outbox_partitions WHERE owner IS NOT NULL"),
                        "every stopped instance gave its partitions up at once (no claim was left in progress)");
                assertEquals(0, db.count("SELECT count(*) FROM outbox_instances"), "and left the instances table");
            } finally {
                relays.forEach(RelayProcess::close);
            }

            DeliveryReport report = transport.equals("jms")
                    ? DeliveryReport.of(db, readQueue(artemis, type))
                    : DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(120));
            long attempted = db.count("SELECT count(*) FROM outbox WHERE attempts > 0 OR last_error IS NOT NULL");
            System.out.printf("RollingRestartIT (%s, %s): %s; rows with an attempt: %d%n  %s%n", database, transport,
                    report, attempted, String.join("\n  ", stops));
            assertEquals(0, attempted, "no event got an attempt because its relay was stopping");
            assertEquals(EVENTS, report.rows());
            assertEquals(0, report.missing(), report.toString());
            assertEquals(0, report.duplicates(), report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }

    static Stream<Arguments> databasesAndTransports() {
        return TestDatabases.postgresqlWith("kafka", "jms");
    }

    private static Map<String, String> environment(TestDatabase db, String transport, String type,
            EmbeddedArtemis artemis) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_DB_USER", db.user());
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        if (transport.equals("jms")) {
            // JMS sends one message at a time: the drain takes long enough at the default settings
            env.put("OUTBOX_ENDPOINT", "jms:queue:" + type);
            env.put("OUTBOX_JMS_BROKER_URL", artemis.url());
        } else {
            // Kafka drains 100,000 events in seconds: paced by settings only (one claim of 50 events at a time, each
            // waiting 40 ms for its acknowledgements: ~1,100 events/s) so that the drain outlasts six rolls (at 100
            // events and 20 ms, ~3,500/s, a quick machine finished the drain before the sixth)
            env.put("OUTBOX_CONCURRENT_CLAIMS", "1");
            env.put("OUTBOX_BATCH_SIZE", "50");
            env.put("CAMEL_COMPONENT_KAFKA_LINGER_MS", "40");
            env.put("CAMEL_COMPONENT_KAFKA_BROKERS", SharedKafka.broker().bootstrapServers());
        }
        return env;
    }

    private static RelayProcess start(Map<String, String> environment, String instanceId) {
        Map<String, String> env = new HashMap<>(environment);
        env.put("OUTBOX_INSTANCE_ID", instanceId);
        RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort());
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
        return relay;
    }

    private static long pending(TestDatabase db) {
        return db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'");
    }

    /** Every message of the queue, in the order the broker hands them out (the order they were sent in). */
    private static List<DeliveryReport.Delivery> readQueue(EmbeddedArtemis artemis, String queue) throws Exception {
        List<DeliveryReport.Delivery> deliveries = new ArrayList<>();
        try (Connection connection = new ActiveMQConnectionFactory(artemis.url()).createConnection()) {
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queue));
            Message message;
            while ((message = consumer.receive(3000)) != null) {
                deliveries.add(new DeliveryReport.Delivery(message.getStringProperty("ce_id"),
                        message.getStringProperty("ce_subject")));
            }
        }
        return deliveries;
    }
}
