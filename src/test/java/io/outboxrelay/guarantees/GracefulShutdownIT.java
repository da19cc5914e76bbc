package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** SIGTERM mid-drain: the in-flight batch finishes, the process exits 0, and a restart publishes no duplicates. */
class GracefulShutdownIT {

    @Test
    void sigtermMidDrainExitsZeroAndLeavesNoDuplicates() {
        String type = "term" + UUID.randomUUID().toString().substring(0, 8);
        int events = 20_000;
        String brokers = SharedKafka.broker().bootstrapServers();
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayProcess first = start(db, brokers, "first")) {
                FaultTestSettings.insertBulk(db, type, events, 500);
                await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.published(db) >= events / 3);
                first.terminate();
                assertEquals(0, first.waitForExit(Duration.ofSeconds(40)), first.output());
            }
            long publishedAtStop = FaultTestSettings.published(db);
            assertEquals(0, db.count("SELECT count(*) FROM outbox_partitions WHERE owner IS NOT NULL"),
                    "every partition given up at once: the claims in progress finished");
            try (RelayProcess second = start(db, brokers, "second")) {
                await().atMost(Duration.ofSeconds(120)).until(() -> FaultTestSettings.published(db) == events);
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(60));
            System.out.println("GracefulShutdownIT: stopped at " + publishedAtStop + " published; " + report);
            assertEquals(0, report.missing(), report.toString());
            assertEquals(0, report.duplicates(), report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }

    private static RelayProcess start(TestDatabase db, String brokers, String name) {
        RelayProcess relay = RelayProcess.startJar(FaultTestSettings.environment(db, brokers, name),
                FaultTestSettings.managementPort());
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
        return relay;
    }
}
