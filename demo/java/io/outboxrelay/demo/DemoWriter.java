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
    private final int poisonEvery;
    private int written;

    DemoWriter(Connection connection, int poisonEvery) throws SQLException {
        this.connection = connection;
        this.poisonEvery = poisonEvery;
        connection.setAutoCommit(false);
    }

    static void createSchema(Connection connection) throws SQLException {
        try (var st = connection.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, customer text NOT NULL, "
                    + "total numeric(10,2) NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
            // the consumer's side (examples/order-consumer.camel.yaml)
            st.execute("CREATE TABLE IF NOT EXISTS received_orders (ce_id text NOT NULL, order_id text NOT NULL, "
                    + "body text, received_at timestamptz NOT NULL DEFAULT now())");
            st.execute("CREATE TABLE IF NOT EXISTS inbox_duplicates (ce_id text NOT NULL, order_id text NOT NULL, "
                    + "dropped_at timestamptz NOT NULL DEFAULT now())");
        }
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
                                + "VALUES ('order', ?, 'OrderPlaced', ?::jsonb)")) {
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
        try (PreparedStatement st = connection.prepareStatement(
                "UPDATE outbox SET status = 'PENDING', published_at = NULL WHERE id = (SELECT id FROM outbox "
                        + "WHERE status = 'PUBLISHED' ORDER BY seq LIMIT 1) RETURNING aggregate_id")) {
            try (var rs = st.executeQuery()) {
                String line = rs.next() ? "re-sent    " + rs.getString(1)
                        + "  (as after a relay crash before its mark: the consumer's inbox must drop the copy)" : null;
                connection.commit();
                return line;
            }
        }
    }

    int written() {
        return written;
    }
}
