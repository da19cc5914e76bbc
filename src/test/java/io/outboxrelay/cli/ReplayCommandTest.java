package io.outboxrelay.cli;

import java.sql.Connection;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.settings.Database;
import io.outboxrelay.sql.OutboxSql;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code replay}: exactly the FAILED rows selected become PENDING (attempts 0, due now, no lease), every other row is
 * left as it was, a PENDING or unknown id refuses the whole replay, and the running relays are woken: the value they
 * watch (claim.NewEventsWatch; on PostgreSQL the outbox's sequence, on MariaDB the largest seq plus the replay
 * counter) moves by one, and on PostgreSQL the table's channel, which relays with outbox.wake-up=notify LISTEN on, is
 * notified on commit. A replay that changes nothing wakes nobody. On PostgreSQL and MariaDB.
 */
@Tag("services")
class ReplayCommandTest extends OutboxTableTestSupport {

    private UUID failedA1;
    private UUID failedA2;
    private UUID failedB;
    private UUID pendingA;
    private UUID publishedB;



    @BeforeEach
    void rows() {
        db.update("DELETE FROM outbox");
        db.update("DELETE FROM outbox_audit");
        failedA1 = outbox.insert("order/a", "FAILED");
        failedA2 = outbox.insert("order/a", "FAILED");
        failedB = outbox.insert("order/b", "FAILED");
        // a PENDING row being retried: a replay must not reset it (a relay may be sending it: twice published)
        pendingA = outbox.insert("order/a", "PENDING");
        db.update("UPDATE outbox SET attempts = 2, last_error = 'timeout', "
                + "next_attempt_at = " + db.nowPlus(60) + " WHERE id = ?", pendingA);
        publishedB = outbox.insert("order/b", "PUBLISHED");
    }

    @Test
    void byIdReplaysThatRowOnly() throws Exception {
        List<Map<String, Object>> before = outbox.snapshot();
        CliFixture.Result result = outbox.run("replay", "--id", failedA2.toString());
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        assertTrue(result.out().startsWith("Replayed 1 FAILED row of outbox: PENDING again, attempts 0, due now; "
                + "running relays were notified.\n"), result.out());
        assertTrue(result.out().contains("\n  " + failedA2 + "  order/a  OrderCreated\n"), result.out());
        assertReplayed(before, Set.of(failedA2));
        // the audit trail the console writes too, the OS user as who
        List<Map<String, Object>> audit = db.query("SELECT who, action, " + db.text("selection")
                + " AS selection, count, outcome FROM outbox_audit");
        assertEquals(1, audit.size(), audit.toString());
        assertEquals(new ObjectMapper().createObjectNode().set("ids",
                new ObjectMapper().createArrayNode().add(failedA2.toString())),
                new ObjectMapper().readTree((String) audit.get(0).get("selection")));
        audit.get(0).remove("selection");
        assertEquals(Map.of("who", System.getProperty("user.name"), "action", "replay", "count", 1,
                "outcome", "replayed"), audit.get(0));
    }

    @Test
    void severalIds() {
        List<Map<String, Object>> before = outbox.snapshot();
        CliFixture.Result result = outbox.run("replay", "--id", failedB.toString(), "--id=" + failedA1);
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().startsWith("Replayed 2 FAILED rows of outbox"), result.out());
        // listed oldest first
        assertTrue(result.out().indexOf(failedA1.toString()) < result.out().indexOf(failedB.toString()), result.out());
        assertReplayed(before, Set.of(failedA1, failedB));
    }

    @Test
    void byKeyEitherWay() {
        List<Map<String, Object>> before = outbox.snapshot();
        CliFixture.Result result = outbox.run("replay", "--key", "order/a");
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().startsWith("Replayed 2 FAILED rows of outbox for key order/a:"), result.out());
        assertReplayed(before, Set.of(failedA1, failedA2));

        before = outbox.snapshot();
        result = outbox.run("replay", "--aggregate-type", "order", "--aggregate-id", "b");
        assertEquals(0, result.exit(), result.toString());
        assertReplayed(before, Set.of(failedB));
    }

    @Test
    void allReplaysEveryFailedRowAndNothingElse() {
        List<Map<String, Object>> before = outbox.snapshot();
        CliFixture.Result result = outbox.run("replay", "--all");
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().startsWith("Replayed 3 FAILED rows of outbox:"), result.out());
        assertReplayed(before, Set.of(failedA1, failedA2, failedB));

        long sequence = sequence(outbox);
        CliFixture.Result again = outbox.run("replay", "--all");
        assertEquals(0, again.exit(), again.toString());
        assertEquals("No FAILED rows in outbox: nothing to replay.\n", again.out());
        CliFixture.Result key = outbox.run("replay", "--key", "order/a");
        assertEquals(0, key.exit(), key.toString());
        assertEquals("No FAILED rows in outbox for key order/a: nothing to replay.\n", key.out());
        assertEquals(sequence, sequence(outbox), "nothing replayed, no relay woken");
    }

    @Test
    void aPendingIdRefusesTheWholeReplay() {
        List<Map<String, Object>> before = outbox.snapshot();
        long sequence = sequence(outbox);
        CliFixture.Result result = outbox.run("replay", "--id", failedA1.toString(), "--id", pendingA.toString());
        assertEquals(3, result.exit(), result.toString());
        assertEquals("", result.out());
        List<String> lines = result.err().lines().toList();
        assertEquals("outbox-relay: replay refused, nothing changed: 1 of 2 ids is not a FAILED row of outbox",
                lines.get(0));
        assertEquals("  " + pendingA + "  PENDING (already waiting to be published): only FAILED rows are replayed",
                lines.get(1));
        assertEquals(2, lines.size(), result.err());
        assertEquals(before, outbox.snapshot(), "nothing changed");
        assertEquals(sequence, sequence(outbox), "no relay woken");
        assertEquals(List.of(Map.of("count", 0, "outcome", "refused: 1 of 2 ids not FAILED")),
                db.query("SELECT count, outcome FROM outbox_audit"), "the refused replay is audited");
    }

    @Test
    void unknownAndPublishedIdsAreReported() {
        List<Map<String, Object>> before = outbox.snapshot();
        UUID unknown = UUID.randomUUID();
        CliFixture.Result result = outbox.run("replay", "--id", unknown.toString(), "--id", publishedB.toString(),
                "--id", failedB.toString());
        assertEquals(3, result.exit(), result.toString());
        assertTrue(result.err().startsWith("outbox-relay: replay refused, nothing changed: 2 of 3 ids are not FAILED "
                + "rows of outbox\n"), result.err());
        assertTrue(result.err().contains("\n  " + unknown + "  no such row\n"), result.err());
        assertTrue(result.err().contains("\n  " + publishedB + "  PUBLISHED: only FAILED rows are replayed\n"),
                result.err());
        assertEquals(before, outbox.snapshot(), "nothing changed");
    }

    @Test
    void dryRunShowsWhatWouldBeReplayedAndChangesNothing() throws Exception {
        List<Map<String, Object>> before = outbox.snapshot();
        long sequence = sequence(outbox);
        try (Listener listener = new Listener("outbox")) {
            CliFixture.Result result = outbox.run("replay", "--all", "--dry-run");
            assertEquals(0, result.exit(), result.toString());
            assertTrue(result.out().startsWith("Dry run, nothing changed: would replay 3 FAILED rows of outbox.\n"),
                    result.out());
            for (UUID id : List.of(failedA1, failedA2, failedB)) {
                assertTrue(result.out().contains(id.toString()), result.out());
            }
            assertEquals(before, outbox.snapshot());
            listener.assertNotified(0, 500);
            assertEquals(sequence, sequence(outbox), "no relay woken by a dry run");

            CliFixture.Result refused = outbox.run("replay", "--id", pendingA.toString(), "--dry-run");
            assertEquals(3, refused.exit(), refused.toString());
            assertTrue(refused.err().startsWith("outbox-relay: replay refused, nothing changed (dry run): "),
                    refused.err());
        }
    }

    @Test
    void aReplayMovesTheWatchedSequenceAndNotifiesTheTablesChannel() throws Exception {
        long sequence = sequence(outbox);
        try (Listener listener = new Listener("outbox")) {
            CliFixture.Result result = outbox.run("replay", "--id", failedB.toString());
            assertEquals(0, result.exit(), result.toString());
            listener.assertNotified(1, 5_000);
        }
        assertEquals(sequence + 1, sequence(outbox), "the sequence the relays watch moved, once");
        // a schema-qualified table: its own watched value, and its qualified name as the channel
        CliFixture qualified = new CliFixture(db, CliFixture.qualified(db, "events")).migrate();
        UUID failed = qualified.insert("order/q", "FAILED");
        long qualifiedSequence = sequence(qualified);
        sequence = sequence(outbox);
        try (Listener listener = new Listener(qualified.table())) {
            CliFixture.Result result = qualified.run("replay", "--all");
            assertEquals(0, result.exit(), result.toString());
            listener.assertNotified(1, 5_000);
        }
        assertEquals("PENDING", qualified.status(failed));
        assertEquals(qualifiedSequence + 1, sequence(qualified), "the qualified table's watched value moved");
        assertEquals(sequence, sequence(outbox), "not the other outbox's");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiterString = " => ", value = {
        "replay                                    => Error: Missing required argument (specify one of these): "
                + "(--id=UUID [--id=UUID]... | --all | (--key=TYPE/ID | (--aggregate-type=T --aggregate-id=I)))",
        "replay --dry-run                          => Error: Missing required argument (specify one of these)",
        "replay --all --key order/a                => Error: --all and (--key=TYPE/ID | (--aggregate-type=T "
                + "--aggregate-id=I)) are mutually exclusive",
        "replay --all --id 3f2e6f0a-1c1d-4a8e-9a43-7b0f5d0b9e11 => Error: --id=UUID, --all are mutually exclusive",
        "replay --id 3f2e6f0a-1c1d-4a8e-9a43-7b0f5d0b9e11 --key order/a => Error: --id=UUID and (--key=TYPE/ID | "
                + "(--aggregate-type=T --aggregate-id=I)) are mutually exclusive",
        "replay --all --aggregate-type order --aggregate-id a => are mutually exclusive",
        "replay --id 42                            => Invalid value for option '--id' (UUID): '42' is not a UUID",
        "replay --id 1-2-3-4-5                     => Invalid value for option '--id' (UUID): '1-2-3-4-5' is not "
                + "a UUID",
        "replay --id                               => Missing required parameter for option '--id' (UUID)",
        "replay --key order                        => Invalid value for option '--key': 'order' is not "
                + "AGGREGATE_TYPE/AGGREGATE_ID",
        "replay --all --force                      => Unknown option: '--force'",
        "replay all                                => Unmatched argument at index 1: 'all'",
    })
    void badUsageExitsTwoAndChangesNothing(String command, String message) {
        List<Map<String, Object>> before = outbox.snapshot();
        CliFixture.Result result = outbox.run(command.split(" "));
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("outbox-relay: replay: "), result.err());
        assertTrue(result.err().contains(message), result.err());
        assertTrue(result.err().strip().endsWith("('replay --help' shows the usage)"), result.err());
        assertEquals(before, outbox.snapshot());
    }

    /** The replayed rows are PENDING, attempts 0, due now, without a lease; every other row is exactly as before. */
    private static void assertReplayed(List<Map<String, Object>> before, Set<UUID> replayed) {
        Instant now = Instant.now();
        List<Map<String, Object>> after = outbox.snapshot();
        assertEquals(before.size(), after.size());
        List<UUID> seen = new ArrayList<>();
        for (int i = 0; i < before.size(); i++) {
            Map<String, Object> was = before.get(i);
            Map<String, Object> is = after.get(i);
            UUID id = UUID.fromString(String.valueOf(is.get("id")));
            if (!replayed.contains(id)) {
                assertEquals(was, is, "untouched: " + id);
                continue;
            }
            seen.add(id);
            assertEquals("FAILED", was.get("status"));
            assertEquals("PENDING", is.get("status"));
            assertEquals(0, is.get("attempts"));
            Instant due = ((Timestamp) is.get("next_attempt_at")).toInstant();
            assertTrue(!due.isAfter(now) && due.isAfter(now.minusSeconds(30)), "due now: " + due);
            // the last error stays until the event is published
            assertEquals(was.get("last_error"), is.get("last_error"));
            for (String unchanged : List.of("seq", "aggregate_type", "aggregate_id", "event_type", "created_at")) {
                assertEquals(String.valueOf(was.get(unchanged)), String.valueOf(is.get(unchanged)), unchanged);
            }
        }
        assertEquals(replayed, Set.copyOf(seen));
    }

    /**
     * What claim.NewEventsWatch watches: on PostgreSQL the last value the outbox's seq sequence handed out; on MariaDB
     * the relay's own look (sql/mariadb/watch-sequence.sql: the largest seq plus the replay counter).
     */
    private static long sequence(CliFixture table) {
        if (table.db().database() == Database.MARIADB) {
            return table.db().count(OutboxSql.resolved(Database.MARIADB, "watch-sequence",
                    Map.of("outbox.table", table.table())));
        }
        return table.db().count("SELECT pg_sequence_last_value(CAST(pg_get_serial_sequence(?, 'seq') AS regclass))",
                table.table());
    }

    /**
     * LISTENs on a channel as a relay with outbox.wake-up=notify does (claim.InsertListener). PostgreSQL's only:
     * MariaDB has no LISTEN/NOTIFY (its relays refuse outbox.wake-up=notify) and nothing to listen to there.
     */
    private static final class Listener implements AutoCloseable {

        private final Connection connection;

        Listener(String channel) throws Exception {
            connection = db.database() == Database.POSTGRESQL ? db.connect() : null;
            if (connection != null) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN \"" + channel + "\"");
                }
            }
        }

        /** On PostgreSQL: exactly this many notifications arrived within the wait. */
        void assertNotified(int expected, int waitMillis) throws Exception {
            if (connection != null) {
                PGNotification[] received = connection.unwrap(PGConnection.class).getNotifications(waitMillis);
                assertEquals(expected, received == null ? 0 : received.length, "notifications on the channel");
            }
        }

        @Override
        public void close() throws Exception {
            if (connection != null) {
                connection.close();
            }
        }
    }
}
