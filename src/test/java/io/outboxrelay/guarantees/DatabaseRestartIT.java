package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.ThrowawayServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The database (a throwaway server of this test's own, PostgreSQL or MariaDB) is down when the relay starts, and
 * restarted while it runs: the relay waits, reports readiness DOWN, and resumes by itself each time.
 */
class DatabaseRestartIT {

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.outboxrelay.support.TestDatabases#both")
    void relayWaitsForTheDatabaseAndRecoversFromARestart(Database database) throws Exception {
        String type = "dbrestart" + UUID.randomUUID().toString().substring(0, 8);
        int port = FaultTestSettings.freePort();
        try (ThrowawayServer server = ThrowawayServer.create(database);
                TestDatabase db = TestDatabase.createOn(database, server.serverUrl())) {
            server.stop();
            RelayProcess relay = RelayProcess.startJar(
                    FaultTestSettings.environment(db, SharedKafka.broker().bootstrapServers(), "dbrestart"),
                    FaultTestSettings.managementPort(port));
            try {
                // started without its database: alive, serving readiness DOWN
                await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 503);
                assertTrue(relay.isAlive());

                server.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 200);
                try (ContinuousWriter writer = new ContinuousWriter(db, type, 100, 200, Integer.MAX_VALUE)) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.published(db) >= 400);

                    server.stop();
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 503);
                    server.start();
                    long restartedAt = System.nanoTime();
                    await().atMost(Duration.ofSeconds(60)).until(() -> FaultTestSettings.readiness(port) == 200);
                    int writtenAfterRestart = writer.written();
                    await().atMost(Duration.ofSeconds(60)).until(
                            () -> FaultTestSettings.published(db) >= writtenAfterRestart);
                    System.out.printf("DatabaseRestartIT (%s): caught up %d ms after the database restart%n",
                            database, (System.nanoTime() - restartedAt) / 1_000_000);
                    int total = writer.stop();
                    // an INSERT can commit as the server goes down while its writer sees an error and writes the
                    // event again: the table may hold more rows than the writer counted, each one to publish
                    await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.published(db) >= total
                            && db.count("SELECT count(*) FROM outbox WHERE status <> 'PUBLISHED'") == 0);
                }
                assertTrue(relay.isAlive(), "the same process recovered, no restart");
            } finally {
                relay.close();
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(60));
            System.out.println("DatabaseRestartIT (" + database + "): " + report);
            assertEquals(0, report.missing(), report.toString());
            assertTrue(report.duplicates() <= FaultTestSettings.BATCH_SIZE, report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }
}
