package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The writers pay nothing for the relay (contract §2), on the real PostgreSQL: after the relay's migrations the outbox
 * has no trigger (nor rule) of the relay's and its schema no function that notifies, and concurrent writers'
 * single-INSERT commits never wait for each other, while a relay with the default wake-up (claim.NewEventsWatch)
 * publishes what they write. The second is watched from the outside: a sampler reads pg_locks
 * about every millisecond while 8 writers commit as fast as they can, and counts the samples in which a writer holds or
 * waits for the lock PostgreSQL takes at the commit of every transaction that notified (PreCommit_Notify in
 * src/backend/commands/async.c: an AccessExclusiveLock on "database 0", held through the commit's WAL flush, which
 * serializes every notifying commit of the cluster), or waits for any other heavyweight lock. Not counted, only
 * shown: waits for the relation extension lock, which PostgreSQL takes for a few microseconds whenever an insert needs
 * a new page at the end of the table's file (seen here on the outbox's own heap, in 0 to 5 of some 1,300 samples a
 * run); any table with concurrent inserters has them, with or without the relay, and they are not held until the
 * commit. The same sampler on the same table with the old insert trigger put back (migrations V2/V6, dropped by V9)
 * must see the notify lock: the check can fail.
 */
@Tag("services")
class WritersPayNothingTest {

    private static final int WRITERS = 8;
    /** How long the writers write, per run. */
    private static final Duration LOAD = Duration.ofSeconds(2);
    private static final long SAMPLE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The old insert trigger of migrations V2 and V6, as it was before V9 dropped it. */
    private static final String OLD_NOTIFY_FUNCTION = "CREATE FUNCTION %1$s_notify() RETURNS trigger LANGUAGE plpgsql "
            + "AS $$ BEGIN PERFORM pg_notify('%1$s', ''); RETURN NULL; END $$";
    private static final String OLD_NOTIFY_TRIGGER = "CREATE TRIGGER %2$s_notify AFTER INSERT ON %1$s "
            + "FOR EACH STATEMENT EXECUTE FUNCTION %1$s_notify()";

    /** SQL: the namespace of the table given as the statement's next parameter. */
    private static final String SCHEMA_OF = "(SELECT relnamespace FROM pg_class WHERE oid = to_regclass(?))";

    /** The lock of PreCommit_Notify: LockSharedObject(DatabaseRelationId, InvalidOid, 0, AccessExclusiveLock). */
    private static final String NOTIFY_LOCK = "l.locktype = 'object' AND l.classid = CAST('pg_database' AS regclass) "
            + "AND l.objid = 0 AND l.database = 0";

    @Test
    void theRelaysMigrationsInstallNoTriggerAndNoNotifyingFunction() {
        try (TestDatabase db = TestDatabase.create()) {
            for (String table : List.of("outbox", "app.events_outbox")) {
                migrate(db, table);
                assertNotNull(db.query("SELECT to_regclass(?) AS t", table).get(0).get("t"), table + " exists");

                assertEquals(List.of(), userTriggers(db, table), "triggers on " + table);
                assertEquals(0, db.count("SELECT count(*) FROM pg_rewrite WHERE ev_class = to_regclass(?)", table),
                        "rules on " + table);
                assertEquals(List.of(), notifyingFunctions(db, table),
                        "functions that notify in " + table + "'s schema");
                // the query looks where the relay's functions are: the event's partition (V9) is one of them
                assertTrue(db.count("SELECT count(*) FROM pg_proc WHERE pronamespace = " + SCHEMA_OF
                        + " AND proname = ?", table, TableName.parse("outbox.table", table).table() + "_partition")
                        == 1, "the relay's functions are in " + table + "'s schema");
            }

            // the checks see a notifying trigger when there is one
            installOldNotifyTrigger(db, "outbox");
            assertEquals(List.of("outbox_notify"), userTriggers(db, "outbox"));
            assertEquals(List.of("outbox_notify"), notifyingFunctions(db, "outbox"));
        }
    }

    @Test
    void concurrentWriterCommitsDoNotWaitForEachOther() throws Exception {
        try (TestDatabase relaysSchema = TestDatabase.create(); TestDatabase oldTrigger = TestDatabase.create()) {
            migrate(relaysSchema, "outbox");
            migrate(oldTrigger, "outbox");
            installOldNotifyTrigger(oldTrigger, "outbox");

            Samples relays;
            Map<String, String> settings = RelayInstance.settings(relaysSchema, "mock:writers-pay-nothing",
                    "127.0.0.1:1");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                relays = load(relaysSchema);
                // the relay found and published the events meanwhile: its watch was at work
                await().atMost(Duration.ofSeconds(60)).until(() -> relaysSchema.count(
                        "SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == relays.commits());
            }
            Samples notifying = load(oldTrigger);
            System.out.printf("WritersPayNothingTest: relay's schema %s%nWritersPayNothingTest: old trigger   %s%n",
                    relays, notifying);

            // the sampler saw the writers at work: a zero below means no writer held or waited for such a lock
            assertTrue(relays.commits() > WRITERS, relays.toString());
            assertEquals(relays.commits(), relaysSchema.count("SELECT count(*) FROM outbox"), "every commit a row");
            assertTrue(relays.samplesSeeingWriters() > relays.samples() / 2, relays.toString());
            assertEquals(0, relays.notifyLock(),
                    "samples with a writer holding or awaiting the notify lock: " + relays);
            assertEquals(0, relays.waiting(), "samples with a writer waiting for a lock (but extension): " + relays);

            // the negative control: the same writers and sampler, the old trigger back on the table
            assertTrue(notifying.commits() > WRITERS, notifying.toString());
            assertTrue(notifying.samplesSeeingWriters() > notifying.samples() / 2, notifying.toString());
            assertTrue(notifying.notifyLock() > 0, "the notifying commits take the cluster-wide lock: " + notifying);
        }
    }

    /** What the sampler saw during one run: samples, and samples with each finding; the writers' commits. */
    private record Samples(long samples, long samplesSeeingWriters, long notifyLock, long waiting, long extending,
            Set<String> waitedFor, long commits, Duration ran) {

        @Override
        public String toString() {
            return String.format("%d commits in %d ms (%.0f/s); %d samples, %d seeing the writers' locks, %d with the "
                    + "notify lock, %d with a writer waiting for a lock, %d for the extension lock; waited for: %s",
                    commits, ran.toMillis(), commits * 1000.0 / Math.max(1, ran.toMillis()), samples,
                    samplesSeeingWriters, notifyLock, waiting, extending, waitedFor);
        }
    }

    /** WRITERS connections commit one INSERT each, over and over, for LOAD, while a sampler watches their locks. */
    private static Samples load(TestDatabase db) throws Exception {
        String applicationName = "writer-" + UUID.randomUUID().toString().substring(0, 8);
        List<Connection> writers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(WRITERS + 1);
        try (Connection sampler = db.connect()) {
            for (int i = 0; i < WRITERS; i++) {
                Connection writer = db.connect();
                writers.add(writer);
                try (Statement st = writer.createStatement()) {
                    st.execute("SET application_name = '" + applicationName + "'");
                }
                writer.setAutoCommit(false);
            }
            assertEquals(WRITERS, db.count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
                    applicationName));

            CountDownLatch go = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicLong commits = new AtomicLong();
            AtomicLong sampled = new AtomicLong();
            List<Future<?>> writerRuns = new ArrayList<>();
            for (Connection writer : writers) {
                writerRuns.add(threads.submit(() -> {
                    go.await();
                    try (PreparedStatement insert = writer.prepareStatement("INSERT INTO outbox (aggregate_type, "
                            + "aggregate_id, event_type, payload) VALUES ('order', ?, 'Placed', ?::jsonb)")) {
                        long deadline = System.nanoTime() + LOAD.toNanos();
                        int n = 0;
                        while (System.nanoTime() < deadline) {
                            insert.setString(1, "o-" + (n++ % 100_000));
                            insert.setString(2, "{\"total\": 12.5}");
                            insert.executeUpdate();
                            writer.commit();
                            commits.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            long[] counts = new long[5];
            Set<String> waitedFor = new TreeSet<>();
            Future<?> sampling = threads.submit(() -> {
                try (PreparedStatement look = sampler.prepareStatement("SELECT "
                        + "count(*) FILTER (WHERE l.relation = to_regclass('outbox')) AS on_outbox, "
                        + "count(*) FILTER (WHERE " + NOTIFY_LOCK + ") AS notify_lock, "
                        + "count(*) FILTER (WHERE NOT l.granted AND l.locktype <> 'extend') AS waiting, "
                        + "count(*) FILTER (WHERE NOT l.granted AND l.locktype = 'extend') AS extending, "
                        + "string_agg(DISTINCT l.locktype || ' ' || l.mode || coalesce(' on ' "
                        + "|| CAST(CAST(l.relation AS regclass) AS text), ''), ', ') "
                        + "FILTER (WHERE NOT l.granted) AS what "
                        + "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.application_name = ?")) {
                    look.setString(1, applicationName);
                    while (writing.get()) {
                        try (ResultSet rs = look.executeQuery()) {
                            rs.next();
                            counts[0]++;
                            counts[1] += rs.getLong("on_outbox") > 0 ? 1 : 0;
                            counts[2] += rs.getLong("notify_lock") > 0 ? 1 : 0;
                            counts[3] += rs.getLong("waiting") > 0 ? 1 : 0;
                            counts[4] += rs.getLong("extending") > 0 ? 1 : 0;
                            if (rs.getString("what") != null) {
                                waitedFor.add(rs.getString("what"));
                            }
                        }
                        sampled.incrementAndGet();
                        LockSupport.parkNanos(SAMPLE_EVERY_NANOS);
                    }
                }
                return null;
            });
            // the sampler runs before the writers start
            await().atMost(Duration.ofSeconds(10)).until(() -> sampled.get() > 0);
            long started = System.nanoTime();
            go.countDown();
            await().atMost(LOAD.plusSeconds(30)).until(() -> writerRuns.stream().allMatch(Future::isDone));
            Duration ran = Duration.ofNanos(System.nanoTime() - started);
            writing.set(false);
            for (Future<?> writer : writerRuns) {
                writer.get();
            }
            sampling.get(30, TimeUnit.SECONDS);
            return new Samples(counts[0], counts[1], counts[2], counts[3], counts[4], waitedFor, commits.get(), ran);
        } finally {
            threads.shutdownNow();
            for (Connection writer : writers) {
                writer.close();
            }
        }
    }

    /** The relay's migrations (SchemaMigration, Flyway) for the table, as a relay starting on it applies them. */
    private static void migrate(TestDatabase db, String table) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(db.url());
        dataSource.setUser("postgres");
        assertTrue(new SchemaMigration(dataSource, TableName.parse("outbox.table", table), 32, true).migrateSchema(),
                "migrations applied to " + table);
    }

    private static void installOldNotifyTrigger(TestDatabase db, String table) {
        String name = TableName.parse("outbox.table", table).table();
        db.update(String.format(OLD_NOTIFY_FUNCTION, table, name));
        db.update(String.format(OLD_NOTIFY_TRIGGER, table, name));
    }

    /** Triggers on the table other than PostgreSQL's own (foreign keys' are internal). */
    private static List<String> userTriggers(TestDatabase db, String table) {
        return db.query("SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal "
                + "ORDER BY tgname", table).stream().map(row -> (String) row.get("tgname")).toList();
    }

    /** Functions in the table's schema whose source calls pg_notify (or NOTIFY). */
    private static List<String> notifyingFunctions(TestDatabase db, String table) {
        return db.query("SELECT proname FROM pg_proc WHERE pronamespace = " + SCHEMA_OF
                + " AND (prosrc ILIKE '%pg_notify%' OR prosrc ~* '\\mnotify\\s') ORDER BY proname", table).stream()
                .map(row -> (String) row.get("proname")).toList();
    }

}
