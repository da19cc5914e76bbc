package io.outboxrelay.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import io.outboxrelay.support.Payloads;

/**
 * The application side of the quick start: each order is a row in the service's own table plus its event in the
 * outbox, written in ONE transaction. Every {@code poisonEvery}-th order carries a payload too large for its topic,
 * so the broker rejects it.
 */
final class DemoWriter {

    static final String[] CUSTOMERS = {"ada", "grace", "linus", "margaret", "dennis", "barbara"};

    private final Connection connection;
    private final DemoDatabase database;
    private final int poisonEvery;
    private int written;

    DemoWriter(Connection connection, DemoDatabase database, int poisonEvery) throws SQLException {
        this.connection = connection;
        this.database = database;
        this.poisonEvery = poisonEvery;
        connection.setAutoCommit(false);
    }

    /** Writes the next order and its event in one transaction; returns a line for the screen. */
    String writeOrder() throws SQLException {
        int n = written + 1;
        String orderId = String.format(Locale.ROOT, "order-%04d", n);
        String customer = CUSTOMERS[n % CUSTOMERS.length];
        double total = Math.round(ThreadLocalRandom.current().nextDouble(5, 500) * 100) / 100.0;
        boolean poison = poisonEvery > 0 && n % poisonEvery == 0;
        String payload = String.format(Locale.ROOT, "{\"orderId\": \"%s\", \"customer\": \"%s\", \"total\": %.2f%s}",
                orderId, customer, total, poison ? ", \"attachment\": " + Payloads.tooBig(200_000) : "");
        try (PreparedStatement order = connection.prepareStatement(
                "INSERT INTO orders (id, customer, total) VALUES (?, ?, ?)");
                PreparedStatement event = connection.prepareStatement(
                        "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                                + "VALUES ('order', ?, 'OrderPlaced', " + database.json() + ")")) {
            order.setString(1, orderId);
            order.setString(2, customer);
            order.setDouble(3, total);
            order.executeUpdate();
            event.setString(1, orderId);
            event.setString(2, payload);
            event.executeUpdate();
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            throw e;
        }
        written = n;
        return String.format(Locale.ROOT, "wrote      %s  OrderPlaced  %-8s %7.2f%s", orderId, customer, total,
                poison ? "  (200 KB payload: the broker will reject it)" : "");
    }

    /** Sends a published event again, as a relay that crashed before marking it would: the inbox must drop it. */
    String resendOnePublished() throws SQLException {
        try (PreparedStatement first = connection.prepareStatement("SELECT id, aggregate_id FROM outbox "
                + "WHERE status = 'PUBLISHED' ORDER BY seq LIMIT 1 FOR UPDATE");
                PreparedStatement resend = connection.prepareStatement(
                        "UPDATE outbox SET status = 'PENDING', published_at = NULL WHERE id = ?");
                var rs = first.executeQuery()) {
            String line = null;
            if (rs.next()) {
                resend.setObject(1, rs.getObject(1));
                resend.executeUpdate();
                line = "re-sent    " + rs.getString(2)
                        + "  (as after a relay crash before its mark: the consumer's inbox must drop the copy)";
            }
            connection.commit();
            return line;
        }
    }

    int written() {
        return written;
    }
}
