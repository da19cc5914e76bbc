package io.outboxrelay.guarantees;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.DeliveryReport;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Three relay processes on one table, sharing its partitions, with continuous inserts over many keys: all delivered,
 * once, in key order.
 */
class SeveralInstancesIT {

    @Test
    void threeRelaysDeliverEveryEventOnceInKeyOrder() throws Exception {
        String type = "multi" + UUID.randomUUID().toString().substring(0, 8);
        int events = FaultTestSettings.soak() ? 100_000 : 12_000;
        String brokers = SharedKafka.broker().bootstrapServers();
        List<RelayProcess> relays = new ArrayList<>();
        try (TestDatabase db = TestDatabase.create()) {
            try {
                for (int i = 0; i < 3; i++) {
                    Map<String, String> env = FaultTestSettings.environment(db, brokers, "relay-" + i);
                    // nothing crashes here: the default lease, so a slow machine's late acknowledgements are not
                    // taken for a dead relay's (which would re-send them, as at-least-once allows)
                    env.remove("OUTBOX_LEASE");
                    RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort());
                    relays.add(relay);
                    relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
                }
                try (ContinuousWriter writer = new ContinuousWriter(db, type, 300, 1_000, events)) {
                    writer.awaitDone();
                }
                await().atMost(Duration.ofSeconds(120)).until(
                        () -> db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == events);
            } finally {
                relays.forEach(RelayProcess::close);
            }
            DeliveryReport report = DeliveryReport.of(db, "outbox.event." + type, Duration.ofSeconds(60));
            System.out.println("SeveralInstancesIT: " + report);
            assertEquals(events, report.rows());
            assertEquals(0, report.missing(), report.toString());
            assertEquals(0, report.duplicates(), report.toString());
            assertEquals(List.of(), report.orderViolations());
        }
    }
}
