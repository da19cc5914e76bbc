package io.outboxrelay.cli;

import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code status}: every figure matches the rows in the table, as text and as JSON, on PostgreSQL and MariaDB. */
@Tag("services")
class StatusCommandTest extends OutboxTableTestSupport {

    @BeforeParameterizedClassInvocation
    static void rows() {
        // the oldest PENDING row, due now
        UUID oldest = outbox.insert("order/k1", "PENDING");
        db.update("UPDATE outbox SET created_at = " + db.nowPlus(-7200) + " WHERE id = ?", oldest);
        outbox.insert("order/k2", "PENDING");
        // due: claimed by a relay or not, a row looks the same (the relays report what they have in flight)
        outbox.insert("order/k3", "PENDING");
        // backing off after a failed attempt, holding back the later event of its key (which is due)
        UUID retried = outbox.insert("order/k4", "PENDING");
        db.update("UPDATE outbox SET attempts = 1, next_attempt_at = " + db.nowPlus(3600) + " WHERE id = ?", retried);
        outbox.holdsItsKey(retried);
        outbox.insert("order/k4", "PENDING");
        outbox.insert("order/k5", "PENDING");
        // FAILED, with a later event of its key (held back only when outbox.failed-blocks-key=true)
        outbox.insert("order/k6", "FAILED");
        outbox.insert("order/k6", "PENDING");
        outbox.insert("order/k7", "FAILED");
        for (int i = 0; i < 4; i++) {
            outbox.insert("order/k8", "PUBLISHED");
        }
        // three archived rows, as the archive mode's retention moves them (sql/<dialect>/archive-expired.sql), the
        // oldest archived 3 days ago
        for (int i = 0; i < 3; i++) {
            archive(outbox.insert("order/k9", "PUBLISHED"), -3 * 86400 + i * 3600);
        }
        // a live relay owning five partitions with 2 events in flight, and a killed one whose partition's lease
        // expired (its in-flight figure no longer counts)
        db.update("INSERT INTO outbox_instances (instance_id, heartbeat_at, in_flight) "
                + "VALUES ('relay-a', " + db.nowPlus(-2) + ", 2), ('relay-dead', " + db.nowPlus(-300) + ", 3)");
        db.update("UPDATE outbox_partitions SET owner = 'relay-a', lease_until = " + db.nowPlus(30)
                + " WHERE partition_number IN (0, 1, 2, 3, 7)");
        db.update("UPDATE outbox_partitions SET owner = 'relay-dead', lease_until = " + db.nowPlus(-60)
                + " WHERE partition_number = 9");
    }

    /** Moves a row to the archive, archived at now plus the given seconds (the partition as each outbox has it). */
    private static void archive(UUID id, long archivedAt) {
        if (db.database() == Database.MARIADB) {
            db.update("INSERT INTO outbox_archive SELECT *, " + db.nowPlus(archivedAt) + " FROM outbox WHERE id = ?",
                    id);
            db.update("DELETE FROM outbox WHERE id = ?", id);
        } else {
            db.update("WITH moved AS (DELETE FROM outbox WHERE id = ? RETURNING *) INSERT INTO outbox_archive "
                    + "SELECT *, outbox_partition(aggregate_type, aggregate_id), " + db.nowPlus(archivedAt)
                    + " FROM moved", id);
        }
    }


    @Test
    void jsonFiguresMatchTheRows() {
        CliFixture.Result result = outbox.run("status", "--json");
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        JsonNode status = result.json();
        assertEquals("outbox", status.get("table").asText());
        assertEquals(7, status.get("pending").asLong(), result.out());
        assertEquals(6, status.get("due").asLong(), result.out());
        assertEquals(2, status.get("in_flight").asLong(), result.out());
        assertEquals(1, status.get("backing_off").asLong(), result.out());
        assertEquals(2, status.get("failed").asLong(), result.out());
        assertEquals(4, status.get("published").asLong(), result.out());
        assertEquals(1, status.get("keys_held_back").asLong(), result.out());
        double age = status.get("oldest_pending_age_seconds").asDouble();
        assertTrue(age >= 7200 && age < 7300, result.out());
        assertEquals(32, status.get("partitions").asLong(), result.out());
        assertEquals(27, status.get("unowned_partitions").asLong(), result.out());
        assertEquals(3, status.get("archived").asLong(), result.out());
        assertTrue(status.get("archived_exact").asBoolean(), result.out());
        double archiveAge = status.get("archive_oldest_age_seconds").asDouble();
        assertTrue(archiveAge >= 3 * 86400 && archiveAge < 3 * 86400 + 100, result.out());
        assertTrue(status.get("archive_oldest_archived_at").asText().matches("\\d{4}-\\d\\d-\\d\\dT.*Z"), result.out());
        JsonNode instances = status.get("instances");
        assertEquals(2, instances.size(), result.out());
        assertEquals("relay-a", instances.get(0).get("instance_id").asText());
        assertEquals("[0,1,2,3,7]", instances.get(0).get("partitions").toString());
        assertEquals(2, instances.get(0).get("in_flight").asLong());
        double heartbeat = instances.get(0).get("heartbeat_age_seconds").asDouble();
        assertTrue(heartbeat >= 2 && heartbeat < 60, result.out());
        assertEquals("relay-dead", instances.get(1).get("instance_id").asText());
        assertEquals("[]", instances.get(1).get("partitions").toString());
    }

    @Test
    void textShowsTheSameFiguresAligned() {
        CliFixture.Result result = outbox.run("status");
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        String out = result.out();
        assertTrue(out.startsWith("Outbox outbox at " + db.url() + "\n"), out);
        // labels, then the figures right-aligned, then what they mean
        assertTrue(out.contains("\n"
                + "  PENDING                7\n"
                + "    due now              6  claimable now\n"
                + "    in flight            2  of these, claimed by a relay (its last heartbeat)\n"
                + "    backing off          1  waiting for their next attempt\n"), out);
        assertTrue(out.matches("(?s).*\n  oldest PENDING age  72\\d\\d  seconds \\(2h 0m \\d+s\\)\n.*"), out);
        assertTrue(out.contains("\n"
                + "  FAILED                 2\n"
                + "  PUBLISHED              4  kept for outbox.retention\n"
                + "  keys held back         1  later events wait behind a retried event of their key\n"), out);
        assertTrue(out.matches("(?s).*\n  archived               3  in outbox_archive; the oldest archived "
                + "\\d{4}-\\d\\d-\\d\\dT[^ ]+Z \\(3d 0h 0m \\d+s ago\\)\n.*"), out);
        assertTrue(out.contains("2 FAILED rows: 'failed' lists them"), out);
        // the partitions and their owners, the newest heartbeat first
        assertTrue(out.contains("\n32 partitions, 27 without a live owner; 2 relay instances\n"), out);
        // heartbeats 2 s and 300 s old when the rows were written, older by the time the test runs on a busy machine
        assertTrue(out.matches("(?s).*\n  instance +heartbeat +in flight +partitions\n"
                + "  relay-a +\\d{1,2}\\.\\d s ago +2  0-3, 7\n"
                + "  relay-dead +3\\d\\d\\.\\d s ago +3  -\n.*"), out);
    }

    @Test
    void partitionNumbersShowAsRanges() {
        assertEquals("0-3, 7, 9-10", StatusCommand.ranges(java.util.List.of(0, 1, 2, 3, 7, 9, 10)));
        assertEquals("5", StatusCommand.ranges(java.util.List.of(5)));
        assertEquals("-", StatusCommand.ranges(java.util.List.of()));
    }

    @Test
    void aFailedEventHoldsItsKeyBackWhenTheRelayIsSetSo() {
        CliFixture blocking = new CliFixture(db, "outbox").set("outbox.failed-blocks-key", "true");
        CliFixture.Result result = blocking.run("status", "--json");
        assertEquals(0, result.exit(), result.toString());
        assertEquals(2, result.json().get("keys_held_back").asLong(), result.out());
    }

    @Test
    void anEmptySchemaQualifiedOutbox() {
        String table = CliFixture.qualified(db, "events_outbox");
        CliFixture empty = new CliFixture(db, table).migrate();
        CliFixture.Result result = empty.run("status", "--json");
        assertEquals(0, result.exit(), result.toString());
        JsonNode status = result.json();
        assertEquals(table, status.get("table").asText());
        for (String figure : new String[] {"pending", "due", "in_flight", "backing_off", "failed", "published",
            "keys_held_back", "archived"}) {
            assertEquals(0, status.get(figure).asLong(), figure);
        }
        assertEquals(0, status.get("archived").asLong());
        assertTrue(status.get("archive_oldest_archived_at").isNull(), result.out());
        assertEquals(0.0, status.get("oldest_pending_age_seconds").asDouble());
        CliFixture.Result text = empty.run("status");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(!text.out().contains("FAILED rows:"), text.out());
    }

    @Test
    void aTableThatDoesNotExistIsReportedAsSuch() {
        CliFixture.Result result = new CliFixture(db, "no_such_outbox").run("status");
        assertEquals(1, result.exit(), result.toString());
        assertEquals("", result.out());
        assertTrue(result.err().startsWith("outbox-relay: no outbox table no_such_outbox in the database at "
                + db.url() + " (check outbox.table"), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
    }
}
