package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.ThrowawayPostgres;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PostgreSQL (a throwaway server of this test's own) is down when the relay starts, and restarted while it runs:
 * the relay waits, reports readiness DOWN, and resumes by itself each time.
 */
class DatabaseRestartIT {

    @Test
    void relayWaitsForTheDatabaseAndRecoversFromARestart() throws Exception {
        String type = "dbrestart" + UUID.randomUUID().toString().substring(0, 8);
        int port = FaultTestSettings.freePort();
        try (ThrowawayPostgres postgres = ThrowawayPostgres.create();
                TestDatabase db = TestDatabase.createOn(postgres.serverUrl())) {
            postgres.stop();
            RelayProcess relay = RelayProcess.startJar(
                    FaultTestSettings.environment(db, SharedKafka.broker().bootstrapServers(), "dbrestart"),
                    FaultTestSettings.managementPort(port));
            try {
                // started without its database: alive, serving readiness DOWN
                await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 503);
                assertTrue(relay.isAlive());

                postgres.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 200);
                try (ContinuousWriter writer = new ContinuousWriter(db, type, 100, 200, Integer.MAX_VALUE)) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.published(db) >= 400);

                    postgres.stop();
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 503);
                    postgres.start();
                    long restartedAt = System.nanoTime();
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 200);
                    int writtenAfterRestart = writer.written();
                    await().atMost(Duration.ofSeconds(60)).until(
                            () -> FaultTestSettings.published(db) >= writtenAfterRestart);
                    System.out.printf("DatabaseRestartIT: caught up %d ms after the database restart%n",
                            (System.nanoTime() - restartedAt) / 1_000_000);
                    int total = writer.stop();
                    await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.published(db) == total);
                }
                assertTrue(relay.isAlive(), "the same process recovered, no restart");
            } finally {
                relay.close();
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(60));
            System.out.println("DatabaseRestartIT: " + report);
            assertEquals(0, report.missing(), report.toString());
            assertTrue(report.duplicates() <= FaultTestSettings.BATCH_SIZE, report.toString());
            assertEquals(List.of(), report.orderViolations());
            assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE status = 'FAILED'"));
        }
    }
}
