package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import io.outboxrelay.support.TestDatabase;

/**
 * Writers as an application runs them, as fast as they can: each its own connection, autocommit off, one outbox
 * INSERT per transaction, then commit. What the writers scenario measures, with or without a relay beside it.
 */
final class CommitLoad {

    /** The contract's writer statement (§2): the payload as ?::jsonb on PostgreSQL, as text on MariaDB. */
    private static String insert(TestDatabase db) {
        return "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) VALUES (?, ?, 'Placed', "
                + db.json() + ")";
    }

    /** Commits completed in the measured window, its length, and each one's INSERT + commit time (µs), sorted. */
    record Result(long commits, double seconds, long[] sortedMicros) {

        long commitsPerSecond() {
            return Math.round(commits / seconds);
        }
    }

    private CommitLoad() {
    }

    /**
     * {@code writers} threads write for {@code warmupSeconds} (not measured: connections' first statements, the
     * relay's reaction to the first events) and then {@code seconds}. Connections are opened before the clock starts,
     * so 64 connection set-ups do not eat into the warm-up. {@code window} hears when the measured seconds begin
     * and end (on this thread, which only waits meanwhile).
     */
    static Result run(TestDatabase db, String[] types, int writers, int warmupSeconds, int seconds, Window window)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch ready = new CountDownLatch(writers);
            CountDownLatch go = new CountDownLatch(1);
            long[] bounds = new long[2];
            List<Future<long[]>> writes = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                writes.add(pool.submit(writer(db, types, ready, go, bounds)));
            }
            ready.await();
            // written before the latch opens: the writers read it after await(), so they see it
            bounds[0] = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            bounds[1] = bounds[0] + seconds * 1_000_000_000L;
            go.countDown();
            sleepUntil(bounds[0]);
            window.opened();
            sleepUntil(bounds[1]);
            window.closed();
            List<long[]> perWriter = new ArrayList<>();
            for (Future<long[]> write : writes) {
                perWriter.add(write.get());
            }
            long[] all = perWriter.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return new Result(all.length, seconds, all);
        } finally {
            pool.shutdownNow();
        }
    }

    /** What runs beside the writers and measures their window too (the CPU each process spent in it). */
    interface Window {
        void opened() throws Exception;

        void closed() throws Exception;
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            Thread.sleep(Math.max(1, left / 1_000_000));
        }
    }

    /**
     * One writer: the microseconds of every transaction that completed inside the window. A transaction that ends
     * after the window is not counted, so commits / window length is the rate.
     */
    private static Callable<long[]> writer(TestDatabase db, String[] types, CountDownLatch ready, CountDownLatch go,
            long[] window) {
        return () -> {
            try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(insert(db))) {
                c.setAutoCommit(false);
                ready.countDown();
                go.await();
                long windowStart = window[0];
                long windowEnd = window[1];
                long[] micros = new long[4096];
                int n = 0;
                for (long i = 0; ; i++) {
                    long begin = System.nanoTime();
                    if (begin >= windowEnd) {
                        break;
                    }
                    int key = ThreadLocalRandom.current().nextInt(BenchEnvironment.KEYS);
                    ps.setString(1, types[key % types.length]);
                    ps.setString(2, "key-" + key);
                    ps.setString(3, payload(i, key));
                    ps.executeUpdate();
                    c.commit();
                    long done = System.nanoTime();
                    if (done >= windowStart && done < windowEnd) {
                        if (n == micros.length) {
                            micros = Arrays.copyOf(micros, n * 2);
                        }
                        micros[n++] = (done - begin) / 1_000;
                    }
                }
                return Arrays.copyOf(micros, n);
            } finally {
                // a writer that failed to connect must not leave the others waiting for it
                ready.countDown();
            }
        };
    }

    /** About 200 bytes of JSON, the steady writer's shape with a shorter note. */
    static String payload(long id, int key) {
        return "{\"id\": " + id + ", \"customer\": \"customer-" + key + "\", \"status\": \"CONFIRMED\", "
                + "\"total\": 123.45, \"lines\": [{\"sku\": \"SKU-1\", \"qty\": 2}], \"note\": \""
                + "x".repeat(90) + "\"}";
    }
}
