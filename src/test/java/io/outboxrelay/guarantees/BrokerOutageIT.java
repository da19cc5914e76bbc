package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.KafkaBroker;
import io.outboxrelay.support.Payloads;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The Kafka broker is stopped for tens of seconds while events keep coming: the relay pauses instead of failing
 * healthy events, reports the broker DOWN, publishes again within 5 s of the broker's return (contract §4) and drains
 * everything. A poison event in the same
 * run (larger than its topic accepts) still ends FAILED after its attempts. On PostgreSQL in the suite; on MariaDB with
 * -Dtest.database=MARIADB.
 */
class BrokerOutageIT {

    private static final int MAX_ATTEMPTS = 3;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#postgresql")
    void outageBurnsNoAttemptsAndLosesNothing(Database database) throws Exception {
        String type = "outage" + UUID.randomUUID().toString().substring(0, 8);
        String poisonType = "poison" + UUID.randomUUID().toString().substring(0, 8);
        int rate = 300;
        int outageEvents = rate * 25;
        int port = FaultTestSettings.freePort();
        try (KafkaBroker broker = KafkaBroker.start(); TestDatabase db = TestDatabase.create(database)) {
            broker.createTopic("outbox.event." + poisonType, 1, Map.of("max.message.bytes", "131072"));
            Map<String, String> env = FaultTestSettings.environment(db, broker.bootstrapServers(), "outage");
            env.put("OUTBOX_MAX_ATTEMPTS", Integer.toString(MAX_ATTEMPTS));
            env.put("OUTBOX_BACKOFF_INITIAL", "PT1S");
            env.put("OUTBOX_LEASE", "PT60S");
            try (RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort(port))) {
                relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, 'p', 'E', " + db.json() + ")",
                        poisonType, Payloads.tooBig(200_000));
                try (ContinuousWriter writer = new ContinuousWriter(db, type, 200, rate, Integer.MAX_VALUE)) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.published(db) >= rate * 3);
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 200);

                    broker.stop();
                    int writtenAtStop = writer.written();
                    long outageStart = System.nanoTime();
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 503);
                    // the broker stays down while the writer adds about 25 seconds' worth of events
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> writer.written() >= writtenAtStop + outageEvents);
                    long backlogAtRestart = db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'");
                    broker.restart();
                    long restartedAt = System.nanoTime();
                    // contract §4: the first publish within 5 s of the broker's return (it answers now)
                    double returnedAt = System.currentTimeMillis() / 1000.0;
                    String firstPublishAfter = database == Database.MARIADB
                            ? "SELECT unix_timestamp(min(published_at)) AS first FROM outbox "
                                    + "WHERE status = 'PUBLISHED' AND published_at >= from_unixtime(?)"
                            : "SELECT extract(epoch FROM min(published_at)) AS first FROM outbox "
                                    + "WHERE status = 'PUBLISHED' AND published_at >= to_timestamp(?)";
                    await("publishing resumes within 5 s of the broker's return").atMost(Duration.ofSeconds(5))
                            .pollInterval(Duration.ofMillis(50))
                            .until(() -> db.query(firstPublishAfter, returnedAt).get(0).get("first") != null);
                    double first = ((Number) db.query(firstPublishAfter, returnedAt).get(0).get("first")).doubleValue();
                    System.out.printf("BrokerOutageIT: first publish %d ms after the broker's return%n",
                            Math.round(1000 * (first - returnedAt)));
                    await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.readiness(port) == 200);
                    int total = writer.stop();
                    await().atMost(Duration.ofSeconds(180)).until(() -> db.count(
                            "SELECT count(*) FROM outbox WHERE status = 'PUBLISHED' "
                                    + "AND aggregate_type = ?", type) == total);
                    System.out.printf("BrokerOutageIT: outage %d s, %d pending at restart, "
                            + "drained %d s after restart%n",
                            (restartedAt - outageStart) / 1_000_000_000L, backlogAtRestart,
                            (System.nanoTime() - restartedAt) / 1_000_000_000L);
                }
                await().atMost(Duration.ofSeconds(120)).until(() -> "FAILED".equals(
                        db.query("SELECT status FROM outbox WHERE aggregate_type = ?", poisonType)
                                .get(0).get("status")));
            }

            assertEquals(List.of(Map.of("aggregate_type", poisonType, "attempts", MAX_ATTEMPTS)),
                    db.query("SELECT aggregate_type, attempts FROM outbox WHERE status = 'FAILED'"),
                    "only the poison event failed, after all its attempts");
            assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE aggregate_type = ? AND attempts > 0", type),
                    "no attempt was burned on a healthy event");
            db.update("DELETE FROM outbox WHERE aggregate_type = ?", poisonType);
            DeliveryReport report = DeliveryReport.of(db, broker.bootstrapServers(), "outbox.event." + type,
                    Duration.ofSeconds(60));
            System.out.println("BrokerOutageIT: " + report);
            assertEquals(0, report.missing(), report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }
}
