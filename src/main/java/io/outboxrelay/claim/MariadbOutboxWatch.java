package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * New events on MariaDB (no sequence behind seq, no lock manager view per table): the watched value is the largest
 * committed seq (sql/mariadb/watch-sequence.sql, one probe of the seq index's end, no lock), which moves when new
 * events commit; the open writers are InnoDB's running transactions that changed rows (sql/mariadb/watch-writers.sql,
 * information_schema.INNODB_TRX): an event whose AUTO_INCREMENT seq is below one already seen (seq is taken at
 * INSERT, not in commit order) becomes visible when its writer ends.
 * <p>
 * INNODB_TRX is a copy InnoDB refreshes only when nobody read it for 100 ms, so with several readers (other relays on
 * the server) a read may return an old copy, without the writers that began since. The watch reads it at most every
 * 100 ms, and trusts only a copy it can tell is fresh: its own transaction there, running this very look. A note of
 * the writers taken before a fresh copy came (marked by a writer that never ends) is taken again from the first fresh
 * copy: that look reports a move, the watch's news, after which it notes the writers afresh.
 */
public final class MariadbOutboxWatch implements WatchedOutbox {

    /** InnoDB refreshes its copy of the running transactions only when nobody read it for this long. */
    static final long TRANSACTIONS_REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Stands for the writers an old copy may lack, until a fresh copy is read. */
    static final String UNKNOWN_WRITERS = "unknown-writers";

    private final String look;
    private final String writers;

    /** @param look sql/mariadb/watch-sequence.sql, @param writers sql/mariadb/watch-writers.sql, both resolved */
    public MariadbOutboxWatch(String look, String writers) {
        this.look = look;
        this.writers = writers;
    }

    @Override
    public Looks open(Connection connection) throws SQLException {
        PreparedStatement lookStatement = connection.prepareStatement(look);
        PreparedStatement writersStatement = connection.prepareStatement(writers);
        Statement transaction = connection.createStatement();
        return new Looks() {
            private long seen = Long.MIN_VALUE;
            private long movedAt = System.nanoTime();
            private long askedAt = movedAt - TRANSACTIONS_REFRESH_NANOS;
            private long freshAt = movedAt - 1;
            private long looks;
            private Set<String> lastFresh = Set.of();
            private boolean notedFromAnOldCopy;
            private boolean noteAgain;

            @Override
            public long value() throws SQLException {
                try (ResultSet rs = lookStatement.executeQuery()) {
                    rs.next();
                    long value = rs.getLong(1);
                    if (value != seen) {
                        seen = value;
                        movedAt = System.nanoTime();
                    }
                    return value;
                }
            }

            @Override
            public boolean moved(long seen, long value) {
                boolean again = noteAgain;
                noteAgain = false;
                return again || value != seen;
            }

            @Override
            public Set<String> openWriters() throws SQLException {
                long now = System.nanoTime();
                if (now - askedAt >= TRANSACTIONS_REFRESH_NANOS) {
                    askedAt = now;
                    Set<String> fresh = read();
                    if (fresh != null) {
                        freshAt = now;
                        lastFresh = fresh;
                        if (notedFromAnOldCopy) {
                            notedFromAnOldCopy = false;
                            noteAgain = true;
                        }
                    }
                }
                if (freshAt - movedAt >= 0) {
                    return lastFresh;
                }
                // no fresh copy since the last move: writers may be missing; noted again from the first fresh copy
                notedFromAnOldCopy = true;
                Set<String> unknown = new HashSet<>(lastFresh);
                unknown.add(UNKNOWN_WRITERS);
                return unknown;
            }

            /** The writers open now, or null when InnoDB's copy is older than this look. */
            private Set<String> read() throws SQLException {
                String marker = "look-" + (++looks) + "-" + System.identityHashCode(this);
                writersStatement.setString(1, marker);
                Set<String> open = new HashSet<>();
                boolean fresh = false;
                transaction.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
                try (ResultSet rs = writersStatement.executeQuery()) {
                    while (rs.next()) {
                        if (rs.getBoolean(2)) {
                            String query = rs.getString(3);
                            fresh |= query != null && query.contains(marker);
                        } else {
                            open.add(rs.getString(1));
                        }
                    }
                } finally {
                    transaction.execute("COMMIT");
                }
                return fresh ? open : null;
            }

            @Override
            public void close() throws SQLException {
                try (lookStatement; writersStatement; transaction) {
                    // all closed
                }
            }
        };
    }
}
