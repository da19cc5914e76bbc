package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The new-events watch on the real PostgreSQL, without a relay around it. outbox.wake-up=sequence (the default): an
 * INSERT is news as soon as it took its seq, committed or not; the watch settles at its first quiet look after it and
 * once the transaction that wrote it has ended, not while it runs, whatever else stays open; an UPDATE (a replay by
 * plain SQL) is no news, the replay's nextval is. claim-index: a committed INSERT is news. Either way an idle watch
 * stays quiet (no wake-up while nothing happens). Its rhythm alone: NewEventsWatchPacingTest.
 */
@Tag("services")
class NewEventsWatchTest {

    private static final String INSERT = "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
            + "VALUES ('order', 'o-1', 'Placed', '{}')";

    @Test
    void anInsertIsNewsAtOnceAndItsLateCommitSettlesWhileAStrangerStaysOpen() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            // an outbox that has had events
            db.update(INSERT);
            Counted watch = Counted.start(dataSource);
            try (Connection writer = db.connect(); Connection stranger = db.connect()) {
                watch.awaitQuiet();
                // an unrelated transaction stays open all along (a report, a session idle in transaction)
                stranger.setAutoCommit(false);
                try (PreparedStatement txid = stranger.prepareStatement("SELECT txid_current()")) {
                    txid.executeQuery().close();
                }

                // a business transaction writes an event and goes on with its work
                writer.setAutoCommit(false);
                // counted before the insert: the watch may see it before this thread runs again
                int news = watch.news.get();
                int settles = watch.settles.get();
                try (PreparedStatement insert = writer.prepareStatement(INSERT)) {
                    insert.executeUpdate();
                }
                await("news of the insert, before its commit").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.news.get() > news);
                // the first quiet look after the news settles (for writers that committed at once), then nothing
                // while the transaction runs
                await("the first quiet look settles").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.settles.get() == settles + 1);
                await("no settle while its transaction runs").during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2)).until(() -> watch.settles.get() == settles + 1);

                writer.commit();
                await("settled once the transaction committed").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.settles.get() == settles + 2);
                await("once").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                        .until(() -> watch.settles.get() == settles + 2);
                stranger.rollback();
            } finally {
                watch.stop();
            }
        }
    }

    /**
     * While every claim that may run is running the watch does not look (its news would be refused): an insert then
     * is no news, though the watch is woken; when a claim ends and leaves room the watch looks at once (not after its
     * pause), and the insert is news then.
     */
    @Test
    void whileTheClaimsAreFullTheWatchWaitsForAClaimToEnd() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            AtomicBoolean full = new AtomicBoolean();
            // an idle watch's pause, and its pause while the claims are full: 10 s
            Counted watch = Counted.start(dataSource, false, full::get, 10_000);
            try {
                watch.awaitQuiet();
                full.set(true);
                int news = watch.news.get();
                db.update(INSERT);
                // woken (as by a claim's end while another claim still runs): it does not look
                watch.watch.claimEnded();
                await("no look while the claims are full").during(Duration.ofMillis(500))
                        .atMost(Duration.ofSeconds(2)).until(() -> watch.news.get() == news);

                full.set(false);
                watch.watch.claimEnded();
                await("news at the claim's end, not after the pause").atMost(Duration.ofSeconds(3))
                        .until(() -> watch.news.get() > news);
            } finally {
                watch.stop();
            }
        }
    }

    /** A writer that rolls back has ended too: the watch settles (finds nothing) and asks no more. */
    @Test
    void aRolledBackInsertSettles() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            db.update(INSERT);
            Counted watch = Counted.start(dataSource);
            try (Connection writer = db.connect()) {
                watch.awaitQuiet();
                writer.setAutoCommit(false);
                int settles = watch.settles.get();
                try (PreparedStatement insert = writer.prepareStatement(INSERT)) {
                    insert.executeUpdate();
                }
                await("the first quiet look settles").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.settles.get() == settles + 1);
                writer.rollback();
                await("settled once the transaction rolled back").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.settles.get() == settles + 2);
                await("once").during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                        .until(() -> watch.settles.get() == settles + 2);
            } finally {
                watch.stop();
            }
        }
    }

    @Test
    void anUpdateIsNoNewsAndAnIdleWatchStaysQuiet() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            db.update(INSERT);
            db.update("UPDATE outbox SET status = 'FAILED'");
            Counted watch = Counted.start(dataSource);
            try {
                watch.awaitQuiet();
                int news = watch.news.get();
                db.update("UPDATE outbox SET status = 'PENDING', attempts = 0, next_attempt_at = now()");
                await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                        .until(() -> watch.news.get() == news);
                // what the operator's replay does to wake the relays (sql/cli-wake-relays.sql)
                db.count("SELECT nextval(pg_get_serial_sequence('outbox', 'seq'))");
                await("the sequence moved").atMost(Duration.ofSeconds(10)).until(() -> watch.news.get() > news);
            } finally {
                watch.stop();
            }
        }
    }

    /** outbox.wake-up=claim-index watches the PENDING rows' largest seq: it sees committed events only. */
    @Test
    void theClaimIndexWatchSeesACommittedInsertAndStaysQuietOtherwise() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            Counted watch = Counted.start(dataSource, true);
            try (Connection writer = db.connect()) {
                watch.awaitQuiet();
                int news = watch.news.get();
                writer.setAutoCommit(false);
                try (PreparedStatement insert = writer.prepareStatement(INSERT)) {
                    insert.executeUpdate();
                }
                await("no news of an uncommitted event").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                        .until(() -> watch.news.get() == news);
                writer.commit();
                await("news of the committed event").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.news.get() > news);
            } finally {
                watch.stop();
            }
        }
    }

    /**
     * The very first event of a new outbox: its sequence has never been used, and its first nextval leaves last_value
     * where it was (1; only is_called changes), so a watch of last_value alone does not see it.
     */
    @Test
    void theFirstEventOfANewOutboxIsNews() throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            PGSimpleDataSource dataSource = migrated(db);
            Counted watch = Counted.start(dataSource);
            try {
                watch.awaitQuiet();
                int news = watch.news.get();
                db.update(INSERT);
                await("news of the outbox's first event").atMost(Duration.ofSeconds(10))
                        .until(() -> watch.news.get() > news);
            } finally {
                watch.stop();
            }
        }
    }

    /** A watch that counts what it would wake. */
    private record Counted(NewEventsWatch watch, AtomicInteger news, AtomicInteger settles) {

        static Counted start(PGSimpleDataSource dataSource) {
            return start(dataSource, false);
        }

        static Counted start(PGSimpleDataSource dataSource, boolean claimIndex) {
            return start(dataSource, claimIndex, () -> false, 25);
        }

        static Counted start(PGSimpleDataSource dataSource, boolean claimIndex, BooleanSupplier claimsFull,
                int maxIntervalMs) {
            AtomicInteger news = new AtomicInteger();
            AtomicInteger settles = new AtomicInteger();
            NewEventsWatch watch = new NewEventsWatch(dataSource,
                    new PostgresqlOutboxWatch(TableName.parse("outbox.table", "outbox"),
                            PostgresqlOutboxWatch.Statements.of(claimIndex,
                                    name -> OutboxSql.resolved(name, Map.of("outbox.table", "outbox"))),
                            claimIndex),
                    1, maxIntervalMs, news::incrementAndGet, settles::incrementAndGet, claimsFull);
            watch.start();
            return new Counted(watch, news, settles);
        }

        /** Started: the news of its start (events may have been committed while nobody watched) and its settle. */
        void awaitQuiet() {
            await().atMost(Duration.ofSeconds(5)).until(() -> news.get() > 0 && settles.get() > 0);
            int n = news.get();
            int s = settles.get();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .until(() -> news.get() == n && settles.get() == s);
            assertTrue(watch.isStarted());
        }

        void stop() {
            watch.stop();
            assertEquals(true, watch.isStopped());
        }
    }

    private static PGSimpleDataSource migrated(TestDatabase db) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(db.url());
        dataSource.setUser("postgres");
        assertTrue(new SchemaMigration(dataSource, TableName.parse("outbox.table", "outbox"), 32, true)
                .migrateSchema());
        return dataSource;
    }
}
