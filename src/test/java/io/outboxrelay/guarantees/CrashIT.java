package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 during a drain, repeatedly, restarting each time: nothing is lost, duplicates stay within one claimed batch
 * per kill, and per-key order of first deliveries holds. On PostgreSQL and MariaDB.
 */
class CrashIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#both")
    void repeatedKillNineLosesNothing(Database database) throws Exception {
        String type = "crash" + UUID.randomUUID().toString().substring(0, 8);
        int events = FaultTestSettings.soak() ? 200_000 : 30_000;
        int kills = FaultTestSettings.soak() ? 10 : 3;
        String brokers = SharedKafka.broker().bootstrapServers();
        try (TestDatabase db = TestDatabase.create(database)) {
            RelayProcess relay = start(db, brokers, 0);
            FaultTestSettings.insertBulk(db, type, events, 500);
            try {
                for (int kill = 1; kill <= kills; kill++) {
                    long threshold = (long) events * kill / (kills + 1);
                    await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.published(db) >= threshold);
                    relay.kill();
                    long publishedAtKill = FaultTestSettings.published(db);
                    long restartedAt = System.nanoTime();
                    relay = start(db, brokers, kill);
                    await().atMost(Duration.ofSeconds(60))
                            .until(() -> FaultTestSettings.published(db) > publishedAtKill);
                    System.out.printf("CrashIT (%s): kill %d at %d published, progress again %d ms after restart%n",
                            database, kill, publishedAtKill, (System.nanoTime() - restartedAt) / 1_000_000);
                }
                await().atMost(Duration.ofSeconds(180)).until(() -> FaultTestSettings.published(db) == events);
            } finally {
                relay.close();
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(120));
            System.out.println("CrashIT (" + database + "): " + report + ", kills=" + kills);
            assertEquals(events, report.rows());
            assertEquals(0, report.missing(), report.toString());
            assertTrue(report.duplicates() <= kills * FaultTestSettings.BATCH_SIZE, report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }

    private static RelayProcess start(TestDatabase db, String brokers, int generation) {
        RelayProcess relay = RelayProcess.startJar(FaultTestSettings.environment(db, brokers, "crash-" + generation),
                FaultTestSettings.managementPort());
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
        return relay;
    }
}
