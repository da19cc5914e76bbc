package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds new events at no cost to the writers (outbox.wake-up=sequence, the default): watches a value that moves with
 * new events (on PostgreSQL the outbox's seq sequence, sql/postgresql/watch-sequence.sql, which reads no table and
 * takes no lock the writers' transactions take part in; what each database reads is its {@link WatchedOutbox}), on a
 * connection of its own, and wakes the claims when it moved. Java because Camel's scheduler polls at a fixed
 * delay (its backoff skips polls, it does not stretch them): this watch looks again after
 * outbox.wake-up.min-interval-ms while events arrive, and doubles its pause up to outbox.wake-up.max-interval-ms while
 * none do, so an idle relay asks a few dozen times a second and a busy one finds an event within milliseconds of its
 * INSERT. While events keep coming, one wake-up every min-interval is what batches them: the claims it starts each
 * take what arrived meanwhile, instead of a claim per event (which cost a claim's CPU for one or two events).
 * <p>
 * The sequence moves at the INSERT, before the writer commits, so the claims woken by a move may not see the event yet.
 * So, while new events are unsettled, each look also asks which transactions hold the lock every writer of the outbox
 * holds from its INSERT to its end (sql/postgresql/watch-writers.sql): the first quiet look after a move notes them and
 * wakes one claim of every free partition ("settle", for the writers that committed meanwhile), and each time one of
 * the noted writers is gone the watch settles again. So an event committed long after its INSERT is found when it
 * commits, whatever other, unrelated transactions stay open. A transaction id horizon (the oldest running transaction)
 * was the earlier way, and any stranger's open transaction held it back (docs/BENCHMARKS.md, "late commits"); the lock
 * look costs ~50 µs of PostgreSQL CPU and runs only while a writer of the new events is open.
 * <p>
 * outbox.wake-up=claim-index is the other candidate measured (docs/BENCHMARKS.md, "wake-up"): the same watch over the
 * largest PENDING seq (sql/postgresql/watch-claim-index.sql), which sees committed rows only but reads the claim index
 * at every look.
 * <p>
 * Where told to (MariaDB: claim.ClaimBeans), while every claim that may run is running the watch does not look: its
 * news would be refused, and cost a wake-up exchange each time (at 32 writers on MariaDB a claim sends for ~150 ms,
 * ~15 looks and refused wake-ups each: 12% of the relay's CPU, docs/BENCHMARKS.md). A claim's end wakes it
 * ({@link #claimEnded}): it looks at once, and its first look reports what moved meanwhile.
 */
public class NewEventsWatch extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(NewEventsWatch.class);
    private static final long RECONNECT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final WatchedOutbox outbox;
    private final long fastestNanos;
    private final long slowestNanos;
    private final Runnable news;
    private final Runnable settle;
    private final BooleanSupplier claimsFull;
    private volatile Thread thread;
    private boolean broken;

    /**
     * @param outbox what the watch reads in the database
     * @param news   wakes every claim that may run (new events)
     * @param settle wakes one claim of every free partition (transactions that wrote new events ended)
     * @param claimsFull every claim that may run is running (no wake-up would start one)
     */
    public NewEventsWatch(DataSource dataSource, WatchedOutbox outbox, int minIntervalMs, int maxIntervalMs,
            Runnable news, Runnable settle, BooleanSupplier claimsFull) {
        this.dataSource = dataSource;
        this.outbox = outbox;
        this.fastestNanos = TimeUnit.MILLISECONDS.toNanos(minIntervalMs);
        this.slowestNanos = TimeUnit.MILLISECONDS.toNanos(maxIntervalMs);
        this.news = news;
        this.settle = settle;
        this.claimsFull = claimsFull;
    }

    @Override
    protected void doStart() {
        thread = new Thread(this::watch, "outbox-new-events-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void watch() {
        while (thread != null) {
            try (Connection connection = dataSource.getConnection();
                    WatchedOutbox.Looks looks = outbox.open(connection)) {
                watchOn(looks);
            } catch (SQLException | RuntimeException e) {
                if (thread != null) {
                    if (!broken) {
                        LOG.warn("Cannot watch for new events, claims rely on polling until it can: {}",
                                e.getMessage());
                        broken = true;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RECONNECT_MILLIS));
                }
            }
        }
    }

    private void watchOn(WatchedOutbox.Looks looks) throws SQLException {
        if (broken) {
            LOG.info("Watching for new events again");
            broken = false;
        }
        // events may have been committed while nobody watched
        news.run();
        Pacing pacing = new Pacing(fastestNanos, slowestNanos);
        long seen = Long.MIN_VALUE;
        while (thread != null) {
            if (claimsFull.getAsBoolean()) {
                // looked at once when a claim ends; the pause is a safety net only
                LockSupport.parkNanos(slowestNanos);
                continue;
            }
            long value = looks.value();
            boolean moved = looks.moved(seen, value);
            switch (pacing.next(moved, !moved && pacing.unsettled() ? looks.openWriters() : Set.of())) {
                case NEWS -> news.run();
                case SETTLE -> settle.run();
                case QUIET -> { }
            }
            seen = value;
            LockSupport.parkNanos(pacing.pauseNanos());
        }
    }

    /** A claim ended: the watch, idle while every claim was running, looks now. */
    public void claimEnded() {
        Thread watching = thread;
        if (watching != null) {
            LockSupport.unpark(watching);
        }
    }

    @Override
    protected void doStop() throws InterruptedException {
        Thread running = thread;
        thread = null;
        if (running != null) {
            LockSupport.unpark(running);
            running.join(RECONNECT_MILLIS * 3);
        }
    }

    /** What one look leads to. */
    enum Look {
        /** New events: wake every claim that may run. */
        NEWS,
        /** Transactions that wrote new events have ended: their events are visible now. */
        SETTLE,
        /** Nothing to do. */
        QUIET
    }

    /**
     * The watch's rhythm, apart from the database so it is tested on its own. The pause is the fastest after new
     * events and doubles up to the slowest while none come. After new events, the first quiet look settles and notes
     * the writers still open (every writer of those events that has not ended yet is among them); each later look
     * that finds some of them gone settles again, and once none is left the watch is settled: it asks no more.
     */
    static final class Pacing {
        private final long fastestNanos;
        private final long slowestNanos;
        private long pauseNanos;
        private boolean unsettled;
        /** The writers noted at the first quiet look after news and still open; null before that look. */
        private Set<String> writers;

        Pacing(long fastestNanos, long slowestNanos) {
            this.fastestNanos = fastestNanos;
            this.slowestNanos = Math.max(fastestNanos, slowestNanos);
            this.pauseNanos = fastestNanos;
        }

        /** Whether a quiet look must bring the writers still open (new events are not settled yet). */
        boolean unsettled() {
            return unsettled;
        }

        /**
         * @param moved       the watched value changed since the last look
         * @param openWriters when the look is quiet and {@link #unsettled()}: the transactions holding the writers'
         *                    lock on the outbox now; ignored otherwise
         */
        Look next(boolean moved, Set<String> openWriters) {
            if (moved) {
                unsettled = true;
                writers = null;
                pauseNanos = fastestNanos;
                return Look.NEWS;
            }
            pauseNanos = Math.min(slowestNanos, pauseNanos * 2);
            if (!unsettled) {
                return Look.QUIET;
            }
            boolean ended = writers == null || writers.retainAll(openWriters);
            if (writers == null) {
                writers = new HashSet<>(openWriters);
            }
            unsettled = !writers.isEmpty();
            return ended ? Look.SETTLE : Look.QUIET;
        }

        long pauseNanos() {
            return pauseNanos;
        }
    }
}
