package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.support.TestDatabase;

/**
 * The retention janitor as every instance runs it: {@code published} expired PUBLISHED rows (and {@code pending}
 * PENDING ones) cleared by one janitor pass, then by three passes at once (three instances whose timers fired
 * together), each in a fresh database, in delete and archive mode; for delete also three passes of the statement as it
 * was before the janitor lock and FOR UPDATE SKIP LOCKED. Each pass is the retention route's loop (the relay's
 * statement until a batch comes back short). Reported: the wall time until every pass ended, rows and statements, and
 * lock waits sampled every 10 ms from pg_stat_activity (sessions waiting on a lock) during the passes.
 */
final class Janitors {

    private final BenchEnvironment env;

    Janitors(BenchEnvironment env) {
        this.env = env;
    }

    List<Map<String, Object>> run(int published, int pending) throws Exception {
        String delete = RelaySql.deleteExpired();
        String archive = RelaySql.archiveExpired();
        // the statement as it was before issue 25: no janitor lock, no row lock
        String deleteBefore = delete.replace("FOR UPDATE SKIP LOCKED", "")
                .replaceAll("\\(SELECT pg_try_advisory_xact_lock\\(hashtext\\('[^']*'\\)\\)\\)\\s+AND\\s+", "");
        if (deleteBefore.contains("SKIP LOCKED") || deleteBefore.contains("pg_try_advisory")) {
            throw new IllegalStateException("sql/delete-expired.sql changed: cannot make its earlier form");
        }
        List<Map<String, Object>> results = new ArrayList<>();
        results.add(passes("janitors_delete_1", delete, 1, published, pending));
        results.add(passes("janitors_delete_3", delete, 3, published, pending));
        results.add(passes("janitors_delete_3_before", deleteBefore, 3, published, pending));
        results.add(passes("janitors_archive_1", archive, 1, published, pending));
        results.add(passes("janitors_archive_3", archive, 3, published, pending));
        return results;
    }

    private Map<String, Object> passes(String scenario, String statement, int janitors, int published, int pending)
            throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            Scenarios.insertPublished(db, published);
            BenchEnvironment.insertEvents(db, new String[] {"a", "b", "c"}, pending);
            db.update("VACUUM ANALYZE outbox");
            Scenarios.settle(db);
            LockWaits waits = new LockWaits(db);
            Thread sampler = new Thread(waits, "bench-lock-waits");
            sampler.start();
            ExecutorService pool = Executors.newFixedThreadPool(janitors);
            long start = System.nanoTime();
            long rows = 0;
            long statements = 0;
            try {
                List<Future<long[]>> passes = new ArrayList<>();
                for (int i = 0; i < janitors; i++) {
                    passes.add(pool.submit(() -> Scenarios.janitorPass(db, statement)));
                }
                for (Future<long[]> pass : passes) {
                    long[] outcome = pass.get();
                    rows += outcome[0];
                    statements += outcome[1];
                }
            } finally {
                pool.shutdownNow();
                waits.stop();
                sampler.join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("scenario", scenario);
            r.put("mode", scenario.contains("archive") ? "archive" : "delete");
            r.put("statement", statement.contains("pg_try_advisory")
                    ? "janitor lock + SKIP LOCKED" : "no lock (before)");
            r.put("janitors", janitors);
            r.put("published_rows", published);
            r.put("rows", rows);
            r.put("statements", statements);
            r.put("pass_s", Math.round(seconds * 100) / 100.0);
            r.put("lock_wait_samples", waits.samplesWithWaits.get());
            r.put("samples", waits.samples.get());
            r.put("max_sessions_waiting", waits.maxWaiting.get());
            r.put("waits_by_event", waits.byEvent());
            r.put("published_rows_left", db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'"));
            return r;
        }
    }

    /**
     * Samples the database's sessions waiting on a heavyweight lock (the janitors', and anyone else's) every 10 ms,
     * by what they wait for (pg_stat_activity.wait_event: transactionid and tuple for a row another session holds,
     * extend for a table or index file being extended, ...).
     */
    private static final class LockWaits implements Runnable {

        private final TestDatabase db;
        private final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicInteger samples = new AtomicInteger();
        final AtomicInteger samplesWithWaits = new AtomicInteger();
        final AtomicInteger maxWaiting = new AtomicInteger();
        final Map<String, Integer> byEvent = new java.util.concurrent.ConcurrentSkipListMap<>();

        LockWaits(TestDatabase db) {
            this.db = db;
        }

        void stop() {
            running.set(false);
        }

        String byEvent() {
            return byEvent.isEmpty() ? "none" : byEvent.toString();
        }

        @Override
        public void run() {
            try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                    "SELECT wait_event FROM pg_stat_activity WHERE datname = current_database() "
                            + "AND wait_event_type = 'Lock'")) {
                while (running.get()) {
                    int waiting = 0;
                    try (var rs = ps.executeQuery()) {
                        while (rs.next()) {
                            waiting++;
                            byEvent.merge(rs.getString(1), 1, Integer::sum);
                        }
                    }
                    samples.incrementAndGet();
                    if (waiting > 0) {
                        samplesWithWaits.incrementAndGet();
                    }
                    maxWaiting.accumulateAndGet(waiting, Math::max);
                    Thread.sleep(10);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
