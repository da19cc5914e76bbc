package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import io.outboxrelay.settings.TableName;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds new events at no cost to the writers (outbox.wake-up=sequence, the default): watches the outbox's seq
 * sequence, {@code SELECT last_value FROM <seq>}, which reads no table and takes no lock the writers' transactions
 * take part in, on a connection of its own, and wakes the claims when it moved. Java because Camel's scheduler polls
 * at a fixed delay (its backoff skips polls, it does not stretch them): this watch looks again after
 * outbox.wake-up.min-interval-ms while events arrive, and doubles its pause up to outbox.wake-up.max-interval-ms while
 * none do, so an idle relay asks a few dozen times a second and a busy one finds an event within milliseconds of its
 * INSERT. While events keep coming, one wake-up every min-interval is what batches them: the claims it starts each
 * take what arrived meanwhile, instead of a claim per event (which cost a claim's CPU for one or two events).
 * <p>
 * last_value moves at the INSERT, before the writer commits, so the claims woken by a move may not see the event yet.
 * The same look therefore reads the transaction horizon ({@code txid_current_snapshot()}, PostgreSQL 12+): the first
 * quiet look after a move takes a transaction id ({@code txid_current()}, one per burst of events), above every id
 * assigned so far; once the oldest transaction still running is past it, every transaction that wrote the moved values
 * has committed or rolled back, and the watch wakes one claim of every free partition ("settle"). So a long business
 * transaction's event is found when it commits, not at the next poll.
 * While an older transaction holds that horizon back (a long report, a session idle in transaction), the watch also
 * settles on each of its looks in the {@link #SETTLE_NANOS} after the move (a handful: its pauses double), which
 * covers writers that commit a few milliseconds after their INSERT.
 * <p>
 * outbox.wake-up=claim-index is the other candidate measured (docs/BENCHMARKS.md, "wake-up"): the same watch over
 * {@code max(seq)} of the PENDING rows, which sees committed rows only but reads the claim index at every look.
 */
public class NewEventsWatch extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(NewEventsWatch.class);
    /** How long after a move the looks settle even while an older transaction holds the horizon back. */
    static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RECONNECT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final TableName table;
    private final boolean claimIndex;
    private final long fastestNanos;
    private final long slowestNanos;
    private final Runnable news;
    private final Runnable settle;
    private volatile Thread thread;
    private boolean broken;

    /**
     * @param claimIndex watch max(seq) of the PENDING rows instead of the sequence (outbox.wake-up=claim-index)
     * @param news       wakes every claim that may run (new events)
     * @param settle     wakes one claim of every free partition (the transactions that wrote them ended)
     */
    public NewEventsWatch(DataSource dataSource, TableName table, boolean claimIndex, int minIntervalMs,
            int maxIntervalMs, Runnable news, Runnable settle) {
        this.dataSource = dataSource;
        this.table = table;
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
                    PreparedStatement look = connection.prepareStatement(lookStatement(connection));
                    PreparedStatement assignedSoFar = connection.prepareStatement("SELECT txid_current()")) {
                if (broken) {
                    LOG.info("Watching for new events again");
                    broken = false;
                }
                // events may have been committed while nobody watched
                news.run();
                Pacing pacing = new Pacing(fastestNanos, slowestNanos, SETTLE_NANOS);
                long seen = Long.MIN_VALUE;
                while (thread != null) {
                    long value;
                    long oldestRunning;
                    try (ResultSet rs = look.executeQuery()) {
                        rs.next();
                        value = rs.getLong(1);
                        oldestRunning = rs.getLong(2);
                    }
                    // the sequence only moves forward (unless restarted); the largest PENDING seq also falls as events
                    // are marked
                    boolean moved = claimIndex ? value > seen : value != seen;
                    // the first quiet look after a move: an id above every one assigned so far (txid_current() takes
                    // one; a snapshot's xmax is only one past the last one completed)
                    long mark = !moved && pacing.wantsMark() ? single(assignedSoFar) : 0;
                    switch (pacing.next(moved, oldestRunning, mark, System.nanoTime())) {
                        case NEWS -> news.run();
                        case SETTLE -> settle.run();
                        case QUIET -> { }
                    }
                    seen = value;
                    LockSupport.parkNanos(pacing.pauseNanos());
                }
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

    private static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The watched value (the sequence's, 0 before its first value; or the largest PENDING seq) and the horizon. */
    private String lookStatement(Connection connection) throws SQLException {
        String value = claimIndex
                ? "(SELECT coalesce(max(seq), 0) FROM " + table.qualified() + " WHERE status = 'PENDING')"
                : "(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + sequenceOf(connection, table) + ")";
        return "SELECT " + value + ", txid_snapshot_xmin(txid_current_snapshot())";
    }

    /** The identity sequence behind the outbox's seq column, quoted as PostgreSQL names it. */
    private static String sequenceOf(Connection connection, TableName table) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_get_serial_sequence(?, 'seq')")) {
            ps.setString(1, table.qualified());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null) {
                    throw new SQLException("no sequence behind " + table.qualified() + ".seq yet");
                }
                return rs.getString(1);
            }
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
        /** The transactions that wrote the last new events have all ended: their events are visible now. */
        SETTLE,
        /** Nothing to do. */
        QUIET
    }

    /**
     * The watch's rhythm, apart from the database so it is tested on its own. The pause is the fastest after new
     * events and doubles up to the slowest while none come. After new events, the first quiet look takes a mark, a
     * transaction id above every one assigned so far (by then every writer of those events has its id); once the
     * oldest transaction still running is past that mark, the look settles, and the watch is settled. Until then,
     * looks within the settle time of the move settle too (an older transaction may hold the horizon back for long).
     */
    static final class Pacing {
        private static final long NO_MARK = Long.MIN_VALUE;

        private final long fastestNanos;
        private final long slowestNanos;
        private final long settleNanos;
        private long pauseNanos;
        private boolean unsettled;
        private long mark = NO_MARK;
        private long movedAtNanos;

        Pacing(long fastestNanos, long slowestNanos, long settleNanos) {
            this.fastestNanos = fastestNanos;
            this.slowestNanos = Math.max(fastestNanos, slowestNanos);
            this.settleNanos = settleNanos;
            this.pauseNanos = fastestNanos;
        }

        /** Whether the next quiet look must bring a mark (the first one after a move). */
        boolean wantsMark() {
            return unsettled && mark == NO_MARK;
        }

        /**
         * @param moved         the watched value changed since the last look
         * @param oldestRunning the oldest transaction id still running (txid_snapshot_xmin)
         * @param mark          when {@link #wantsMark()} and the look is quiet: an id above every one assigned so far
         *                      (txid_current()); ignored otherwise
         * @param nowNanos      when the look was made (System.nanoTime)
         */
        Look next(boolean moved, long oldestRunning, long mark, long nowNanos) {
            if (moved) {
                unsettled = true;
                this.mark = NO_MARK;
                movedAtNanos = nowNanos;
                pauseNanos = fastestNanos;
                return Look.NEWS;
            }
            pauseNanos = Math.min(slowestNanos, pauseNanos * 2);
            if (unsettled) {
                if (this.mark == NO_MARK) {
                    this.mark = mark;
                }
                if (oldestRunning >= this.mark) {
                    unsettled = false;
                    return Look.SETTLE;
                }
                if (nowNanos - movedAtNanos <= settleNanos) {
                    return Look.SETTLE;
                }
            }
            return Look.QUIET;
        }

        long pauseNanos() {
            return pauseNanos;
        }
    }
}
