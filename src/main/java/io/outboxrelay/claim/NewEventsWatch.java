package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import io.outboxrelay.settings.TableName;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds new events at no cost to the writers (outbox.wake-up=sequence, the default): watches the outbox's seq
 * sequence (sql/watch-sequence.sql), which reads no table and takes no lock the writers' transactions take part in,
 * on a connection of its own, and wakes the claims when it moved. Java because Camel's scheduler polls at a fixed
 * delay (its backoff skips polls, it does not stretch them): this watch looks again after
 * outbox.wake-up.min-interval-ms while events arrive, and doubles its pause up to outbox.wake-up.max-interval-ms while
 * none do, so an idle relay asks a few dozen times a second and a busy one finds an event within milliseconds of its
 * INSERT. While events keep coming, one wake-up every min-interval is what batches them: the claims it starts each
 * take what arrived meanwhile, instead of a claim per event (which cost a claim's CPU for one or two events).
 * <p>
 * The sequence moves at the INSERT, before the writer commits, so the claims woken by a move may not see the event
 * yet. So, while new events are unsettled, each look also asks which transactions hold the lock every writer of the
 * outbox holds from its INSERT to its end (sql/watch-writers.sql): the first quiet look after a move notes them and
 * wakes one claim of every free partition ("settle", for the writers that committed meanwhile), and each time one of
 * the noted writers is gone the watch settles again. So an event committed long after its INSERT is found when it
 * commits, whatever other, unrelated transactions stay open. A transaction id horizon (the oldest running
 * transaction) was the earlier way, and any stranger's open transaction held it back (docs/BENCHMARKS.md, "late
 * commits"); the lock look costs ~50 µs of PostgreSQL CPU and runs only while a writer of the new events is open.
 * <p>
 * outbox.wake-up=claim-index is the other candidate measured (docs/BENCHMARKS.md, "wake-up"): the same watch over
 * the largest PENDING seq (sql/watch-claim-index.sql), which sees committed rows only but reads the claim index at
 * every look.
 */
public class NewEventsWatch extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(NewEventsWatch.class);
    private static final long RECONNECT_MILLIS = 1_000;

    /** The watch's statements: which objects to watch, the look at the watched value, the writers still open. */
    public record Statements(String outbox, String look, String writers) {

        /** sql/watch-*.sql, each resolved by the given function (its placeholders). */
        public static Statements of(boolean claimIndex, UnaryOperator<String> resolved) {
            return new Statements(resolved.apply("watch-outbox"),
                    resolved.apply(claimIndex ? "watch-claim-index" : "watch-sequence"),
                    resolved.apply("watch-writers"));
        }
    }

    private final DataSource dataSource;
    private final TableName table;
    private final Statements statements;
    private final boolean claimIndex;
    private final long fastestNanos;
    private final long slowestNanos;
    private final Runnable news;
    private final Runnable settle;
    private volatile Thread thread;
    private boolean broken;

    /**
     * @param claimIndex watch the largest PENDING seq instead of the sequence (outbox.wake-up=claim-index)
     * @param news       wakes every claim that may run (new events)
     * @param settle     wakes one claim of every free partition (transactions that wrote new events ended)
     */
    public NewEventsWatch(DataSource dataSource, TableName table, Statements statements, boolean claimIndex,
            int minIntervalMs, int maxIntervalMs, Runnable news, Runnable settle) {
        this.dataSource = dataSource;
        this.table = table;
        this.statements = statements;
        this.claimIndex = claimIndex;
        this.fastestNanos = TimeUnit.MILLISECONDS.toNanos(minIntervalMs);
        this.slowestNanos = TimeUnit.MILLISECONDS.toNanos(maxIntervalMs);
        this.news = news;
        this.settle = settle;
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
                    PreparedStatement look = connection.prepareStatement(statements.look());
                    PreparedStatement writers = connection.prepareStatement(statements.writers())) {
                watchOn(connection, look, writers);
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

    private void watchOn(Connection connection, PreparedStatement look, PreparedStatement writers)
            throws SQLException {
        long[] watched = watchedObjects(connection);
        if (!claimIndex) {
            look.setLong(1, watched[1]);
        }
        writers.setLong(1, watched[0]);
        if (broken) {
            LOG.info("Watching for new events again");
            broken = false;
        }
        // events may have been committed while nobody watched
        news.run();
        Pacing pacing = new Pacing(fastestNanos, slowestNanos);
        long seen = Long.MIN_VALUE;
        while (thread != null) {
            long value;
            try (ResultSet rs = look.executeQuery()) {
                rs.next();
                value = rs.getLong(1);
            }
            // the sequence only moves forward (unless restarted); the largest PENDING seq also falls as events are
            // marked
            boolean moved = claimIndex ? value > seen : value != seen;
            switch (pacing.next(moved, !moved && pacing.unsettled() ? openWriters(writers) : Set.of())) {
                case NEWS -> news.run();
                case SETTLE -> settle.run();
                case QUIET -> { }
            }
            seen = value;
            LockSupport.parkNanos(pacing.pauseNanos());
        }
    }

    /** The outbox table's object id and its sequence's. */
    private long[] watchedObjects(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(statements.outbox())) {
            ps.setString(1, table.qualified());
            ps.setString(2, table.qualified());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long sequence = rs.getLong(2);
                if (rs.wasNull()) {
                    throw new SQLException("no sequence behind " + table.qualified() + ".seq yet");
                }
                return new long[] {rs.getLong(1), sequence};
            }
        }
    }

    private static Set<String> openWriters(PreparedStatement writers) throws SQLException {
        Set<String> open = new HashSet<>();
        try (ResultSet rs = writers.executeQuery()) {
            while (rs.next()) {
                open.add(rs.getString(1));
            }
        }
        return open;
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
