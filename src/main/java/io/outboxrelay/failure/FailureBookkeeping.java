package io.outboxrelay.failure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.outboxrelay.claim.OutboxEvent;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.UnpublishableEventException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a failed attempt on its row (sql/record-failure.sql): the attempt counted, the error kept, the next attempt
 * backed off, FAILED at outbox.max-attempts or at once for a row that can never become a message, and the event's
 * key held back. One WARN line per failed attempt.
 */
public class FailureBookkeeping {

    private static final Logger LOG = LoggerFactory.getLogger(FailureBookkeeping.class);
    /** last_error is for people reading the table: long stack-like messages are cut. */
    private static final int MAX_LENGTH = 2000;

    private final String recordFailureSql;
    private final RelayMetrics metrics;

    /** @param metrics may be null (the Kamelet has no meter registry of the relay's) */
    public FailureBookkeeping(String recordFailureSql, RelayMetrics metrics) {
        this.recordFailureSql = recordFailureSql;
        this.metrics = metrics;
    }

    /** @return the row's status afterwards (PENDING or FAILED), or null if it was no longer PENDING */
    public String record(Connection connection, OutboxEvent event, Throwable cause) throws SQLException {
        String error = describe(cause);
        String status = null;
        try (PreparedStatement statement = connection.prepareStatement(recordFailureSql)) {
            statement.setString(1, error);
            statement.setBoolean(2, cause instanceof UnpublishableEventException);
            statement.setString(3, event.id());
            try (ResultSet rs = statement.executeQuery()) {
                if (rs.next()) {
                    status = rs.getString(1);
                }
            }
        }
        if (metrics != null) {
            metrics.publishFailed(status);
        }
        LOG.warn("event {} failed, now {}: {}", event.id(), status, error);
        return status;
    }

    static String describe(Throwable cause) {
        String text = cause == null ? "unknown failure" : cause.getClass().getName() + ": " + cause.getMessage();
        return text.length() > MAX_LENGTH ? text.substring(0, MAX_LENGTH) : text;
    }
}
