package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * New events on MariaDB (no sequence behind seq, no lock manager view per table): the watched value is the largest
 * committed seq (sql/mariadb/watch-sequence.sql, one probe of the seq index's end, no lock), which moves when new
 * events commit; the open writers are InnoDB's running transactions that changed rows (sql/mariadb/watch-writers.sql,
 * information_schema.INNODB_TRX): an event whose AUTO_INCREMENT seq is below one already seen (seq is taken at
 * INSERT, not in commit order) becomes visible when its writer ends. INNODB_TRX is a copy InnoDB refreshes at most
 * every 100 ms: it is read no more often, and only once it is surely newer than the look that saw new events (a
 * writer that inserted before those events committed must be in it).
 */
public final class MariadbOutboxWatch implements WatchedOutbox {

    /** How often InnoDB refreshes its copy of the running transactions at most. */
    static final long TRANSACTIONS_REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

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
        return new Looks() {
            private long seen = Long.MIN_VALUE;
            private long movedAt = System.nanoTime();
            private long askedAt = movedAt - TRANSACTIONS_REFRESH_NANOS;
            private Set<String> lastAnswer = Set.of();

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
            public Set<String> openWriters() throws SQLException {
                long now = System.nanoTime();
                long fresh = movedAt + TRANSACTIONS_REFRESH_NANOS;
                if (now - fresh < 0) {
                    LockSupport.parkNanos(fresh - now);
                } else if (now - askedAt < TRANSACTIONS_REFRESH_NANOS) {
                    return lastAnswer;
                }
                Set<String> open = new HashSet<>();
                try (ResultSet rs = writersStatement.executeQuery()) {
                    while (rs.next()) {
                        open.add(rs.getString(1));
                    }
                }
                askedAt = System.nanoTime();
                lastAnswer = open;
                return open;
            }

            @Override
            public void close() throws SQLException {
                try (lookStatement; writersStatement) {
                    // both closed
                }
            }
        };
    }
}
