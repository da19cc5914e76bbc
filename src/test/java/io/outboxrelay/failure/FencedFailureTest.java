package io.outboxrelay.failure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.settings.RelaySettings;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.Exchange;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The failure write is fenced by ownership: a failed attempt reaches the event's row (through the record-failure route
 * and its SQL, as a failed send does) only while the event's partition is this instance's under a live lease. A
 * failure that arrives after the partition moved to another instance, or after this instance's lease ran out, is not
 * written and not counted; it still holds the event's key back in its own batch.
 */
@Tag("services")
class FencedFailureTest {

    private static TestDatabase db;
    private static RelayInstance relay;
    private static String me;

    @BeforeAll
    static void start() {
        db = TestDatabase.create();
        relay = RelayInstance.start(RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1"));
        me = relay.context().getRegistry().lookupByNameAndType("relaySettings", RelaySettings.class).instanceId();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> db.count("SELECT count(*) FROM outbox_partitions WHERE owner = ?", me) == 32);
    }

    @AfterAll
    static void stop() {
        relay.close();
        db.close();
    }

    private String id;
    private int partition;

    @BeforeEach
    void insertAnEventNotDueYet() {
        // not claimed by the relay itself: due in an hour
        id = (String) db.query(
                "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, next_attempt_at) "
                        + "VALUES ('order', 'o-' || gen_random_uuid(), 'E', '{}', now() + interval '1 hour') "
                        + "RETURNING id::text AS id").get(0).get("id");
        partition = (int) db.count(
                "SELECT outbox_partition(aggregate_type, aggregate_id) FROM outbox WHERE id = ?::uuid", id);
    }

    @Test
    void aFailureOfAnEventOfThisInstancesPartitionIsWritten() {
        OutboxEvent.Batch batch = recordFailure();


        assertEquals(1, db.count("SELECT attempts FROM outbox WHERE id = ?::uuid", id));
        assertTrue(lastError().contains("broker said no"), lastError());
        assertFalse(batch.maySend(id), "its key is held back in its batch");
    }

    @Test
    void aFailureAfterThePartitionMovedToAnotherInstanceIsNotWritten() {
        // another instance took the partition (this one's heartbeat does not take it back: its lease is live)
        db.update("UPDATE outbox_partitions SET owner = 'another-instance', lease_until = now() + interval '1 hour' "
                + "WHERE partition_number = ?", partition);
        try {
            double failuresBefore = relay.counter("outbox.publish.failures");
            OutboxEvent.Batch batch = recordFailure();


            assertEquals(0, db.count("SELECT attempts FROM outbox WHERE id = ?::uuid", id));
            assertNull(lastError());
            assertEquals(1, db.count("SELECT count(*) FROM outbox WHERE id = ?::uuid AND status = 'PENDING' "
                    + "AND next_attempt_at > now() + interval '50 minutes'", id), "the row is untouched");
            assertEquals(failuresBefore, relay.counter("outbox.publish.failures"), "not counted as a failure");
            assertFalse(batch.maySend(id), "its key is still held back in its batch");
        } finally {
            db.update("UPDATE outbox_partitions SET owner = NULL, lease_until = NULL WHERE partition_number = ?",
                    partition);
            await().atMost(Duration.ofSeconds(30)).until(() -> db.count(
                    "SELECT count(*) FROM outbox_partitions WHERE owner = ? AND partition_number = ?", me,
                    partition) == 1);
        }
    }

    @Test
    void aFailureAfterThisInstancesLeaseRanOutIsNotWritten() throws Exception {
        // the heartbeat would renew it: suspended meanwhile
        relay.context().getRouteController().suspendRoute("outbox-heartbeat");
        try {
            db.update("UPDATE outbox_partitions SET lease_until = now() - interval '1 second' "
                    + "WHERE partition_number = ?", partition);
            recordFailure();

            assertEquals(0, db.count("SELECT attempts FROM outbox WHERE id = ?::uuid", id));
            assertNull(lastError());
        } finally {
            relay.context().getRouteController().resumeRoute("outbox-heartbeat");
        }
    }

    /** A failed send of the event as the publish route hands it over: the record-failure route with its exception. */
    private OutboxEvent.Batch recordFailure() {
        var batch = OutboxEvent.Batch.of(List.of(new OutboxEvent(id, 1, partition, "order", "o", "E", "{}", null,

                Instant.now(), 0)));
        Exchange exchange = new DefaultExchange(relay.context());
        exchange.setProperty(ExchangeNames.BATCH, batch);
        exchange.setProperty(ExchangeNames.EVENT_ID, id);
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, new IllegalStateException("broker said no"));
        ProducerTemplate template = relay.context().createProducerTemplate();
        Exchange done = template.send("direct:outbox-record-failure", exchange);
        assertNull(done.getException());
        return batch;
    }

    private String lastError() {
        return (String) db.query("SELECT last_error FROM outbox WHERE id = ?::uuid", id).get(0).get("last_error");
    }
}
