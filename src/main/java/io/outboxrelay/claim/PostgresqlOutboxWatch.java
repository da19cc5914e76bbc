package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.outboxrelay.settings.TableName;

/**
 * New events on PostgreSQL: the outbox's seq sequence (sql/postgresql/watch-sequence.sql), which reads no table and
 * takes no lock the writers' transactions take part in, or the largest PENDING seq (watch-claim-index.sql,
 * outbox.wake-up=claim-index); the open writers are the transactions holding the lock every writer of the outbox holds
 * from its INSERT to its end (watch-writers.sql: RowExclusiveLock on the table).
 */
public final class PostgresqlOutboxWatch implements WatchedOutbox {

    /** The statements: which objects to watch, the look at the watched value, the writers still open. */
    public record Statements(String outbox, String look, String writers) {

        /** sql/postgresql/watch-*.sql, each resolved by the given function (its placeholders). */
        public static Statements of(boolean claimIndex, UnaryOperator<String> resolved) {
            return new Statements(resolved.apply("watch-outbox"),
                    resolved.apply(claimIndex ? "watch-claim-index" : "watch-sequence"),
                    resolved.apply("watch-writers"));
        }
    }

    private final TableName table;
    private final Statements statements;
    private final boolean claimIndex;

    /** @param claimIndex watch the largest PENDING seq instead of the sequence (outbox.wake-up=claim-index) */
    public PostgresqlOutboxWatch(TableName table, Statements statements, boolean claimIndex) {
        this.table = table;
        this.statements = statements;
        this.claimIndex = claimIndex;
    }

    @Override
    public Looks open(Connection connection) throws SQLException {
        long[] watched = watchedObjects(connection);
        PreparedStatement look = connection.prepareStatement(statements.look());
        PreparedStatement writers = connection.prepareStatement(statements.writers());
        if (!claimIndex) {
            look.setLong(1, watched[1]);
        }
        writers.setLong(1, watched[0]);
        return new Looks() {
            @Override
            public long value() throws SQLException {
                try (ResultSet rs = look.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }

            @Override
            public boolean moved(long seen, long value) {
                // the sequence only moves forward (unless restarted); the largest PENDING seq also falls as events
                // are marked
                return claimIndex ? value > seen : value != seen;
            }

            @Override
            public Set<String> openWriters() throws SQLException {
                Set<String> open = new HashSet<>();
                try (ResultSet rs = writers.executeQuery()) {
                    while (rs.next()) {
                        open.add(rs.getString(1));
                    }
                }
                return open;
            }

            @Override
            public void close() throws SQLException {
                try (look; writers) {
                    // both closed
                }
            }
        };
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
}
