package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;

/**
 * What the new-events watch ({@link NewEventsWatch}) reads, one implementation per database, because each tells "new
 * events" and "the writers of the outbox still open" from its own catalogue: PostgreSQL from the outbox's sequence and
 * its lock manager ({@link PostgresqlOutboxWatch}), MariaDB from the seq index and InnoDB's running transactions
 * ({@link MariadbOutboxWatch}). The watch's rhythm (NewEventsWatch.Pacing) is the same for both.
 */
public interface WatchedOutbox {

    /** The looks of one watch connection, prepared on it once. */
    Looks open(Connection connection) throws SQLException;

    /** The looks, closed with their connection. */
    interface Looks extends AutoCloseable {

        /** The watched value (a look at it takes no lock the writers take part in). */
        long value() throws SQLException;

        /** Whether the watched value moved from {@code seen} to {@code value}: there are new events. */
        default boolean moved(long seen, long value) {
            return value != seen;
        }

        /** The transactions other than this session's that may have written new events and not ended yet. */
        Set<String> openWriters() throws SQLException;

        @Override
        void close() throws SQLException;
    }
}
