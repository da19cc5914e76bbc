package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.support.Churn;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Relay processes join, stop gracefully and are killed every two seconds while they drain 40,000 events (or more, until
 * a stop and a kill have happened) over 600 keys, written 1,000 a second once three instances run: partitions keep
 * moving between them, and every stop and kill meets PENDING events and partitions the leaving instance owns. Nothing
 * is lost, no key's events are first delivered out of order, and duplicates stay within one batch per kill (what the
 * killed instance had claimed and not marked; graceful stops duplicate nothing: RollingRestartIT).
 */
class ChurnIT {

    private static final int EVENTS = 40_000;
    private static final int KEYS = 600;
    private static final int BATCH_SIZE = 500;
    private static final int SLICE = 1_000;

    @Test
    void instancesComingAndGoingLoseNothingAndKeepOrder() throws Exception {
        String type = "churn" + UUID.randomUUID().toString().substring(0, 8);
        String brokers = SharedKafka.broker().bootstrapServers();
        SharedKafka.broker().createTopic("outbox.event." + type, 6, Map.of());
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayProcess first = start(db, brokers, "schema")) {
                // the first relay creates the schema; it leaves before the events are written
                first.terminate();
                first.waitForExit(Duration.ofSeconds(60));
            }
            // written over 40 s while the instances come and go (a backlog written at once drains before much
            // churn has happened), and on until a stop and a kill have met it (a relay takes seconds to start on a
            // busy machine, so a round can take longer than its two-second step)
            Churn churning = new Churn(db, id -> start(db, brokers, id), Duration.ofSeconds(2), true);
            CompletableFuture<Void> writer = new CompletableFuture<>();
            AtomicInteger nextSlice = new AtomicInteger(1);
            ScheduledExecutorService writing = Executors.newSingleThreadScheduledExecutor();
            Runnable writeASlice = () -> {
                int first = nextSlice.getAndAdd(SLICE);
                try {
                    FaultTestSettings.insertNumbered(db, type, first, first + SLICE - 1, KEYS);
                } catch (RuntimeException e) {
                    writer.completeExceptionally(e);
                    throw e;
                }
                if (first + SLICE > EVENTS && churning.stopped() >= 1 && churning.killed() >= 1) {
                    writer.complete(null);
                    throw new CancellationException("all slices written");
                }
            };
            Churn.Result churn;
            try {
                churn = churning.run(() -> writing.scheduleAtFixedRate(writeASlice, 0, 1, TimeUnit.SECONDS),
                        () -> !writer.isDone(), Duration.ofMinutes(5));
                writer.join();
            } finally {
                writing.shutdownNow();
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(60));
            System.out.printf("ChurnIT: %s; drained in %d s; partitions of killed instances moving again after %s ms "
                    + "(lease %s + heartbeat %s); %s%n", churn, churn.drained().toSeconds(), churn.recoveryMillis(),
                    FaultTestSettings.LEASE, FaultTestSettings.HEARTBEAT, report);
            assertTrue(churn.stopped() >= 1, churn.toString());
            assertTrue(churn.killed() >= 1, churn.toString());
            assertTrue(churn.faults().stream().allMatch(f -> f.pending() > 0 && f.ownedPartitions() > 0),
                    "every stop and kill met PENDING events and partitions the instance owned: " + churn.faults());
            assertEquals(0, report.missing(), report.toString());
            assertEquals(List.of(), report.orderViolations());
            assertTrue(report.duplicates() <= churn.killed() * BATCH_SIZE, report + " for " + churn);
        }
    }

    private static RelayProcess start(TestDatabase db, String brokers, String instanceId) {
        Map<String, String> env = FaultTestSettings.environment(db, brokers, instanceId);
        env.put("OUTBOX_BATCH_SIZE", Integer.toString(BATCH_SIZE));
        RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort());
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
        return relay;
    }
}
