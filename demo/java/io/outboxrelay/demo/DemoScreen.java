package io.outboxrelay.demo;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.Map;

/**
 * What the quick start shows: a line per thing that happens (published, consumed, retried, failed, dropped as a
 * duplicate), read from the tables, and a one-line status redrawn in place on a terminal.
 */
final class DemoScreen {

    private final Connection connection;
    private final DemoDatabase database;
    private final PrintStream out;
    private final boolean terminal;
    private final String topicHint;
    private Timestamp lastPublished = new Timestamp(0);
    private Timestamp lastReceived = new Timestamp(0);
    private Timestamp lastDropped = new Timestamp(0);
    private final Map<String, Integer> attemptsSeen = new HashMap<>();
    private boolean statusShown;
    private String lastStatus = "";

    DemoScreen(Connection connection, DemoDatabase database, PrintStream out, boolean terminal, String topicHint) {
        this.connection = connection;
        this.database = database;
        this.out = out;
        this.terminal = terminal;
        this.topicHint = topicHint;
    }

    void line(String text) {
        clearStatus();
        out.println("  " + text);
    }

    /** Prints what happened since the last refresh, then the status line. */
    void refresh(int written) throws SQLException {
        lastPublished = since("SELECT published_at, aggregate_id, " + database.idText() + " FROM outbox "
                + "WHERE status = 'PUBLISHED' AND published_at > ? ORDER BY published_at, seq", lastPublished,
                rs -> String.format("published  %s  key=%s  ce_id=%s", topicHint, rs.getString(2), rs.getString(3)));
        lastReceived = since("SELECT received_at, order_id FROM received_orders "
                + "WHERE received_at > ? ORDER BY received_at",
                lastReceived, rs -> "consumed   " + rs.getString(2) + "  once, by the example consumer route");
        lastDropped = since("SELECT dropped_at, order_id FROM inbox_duplicates "
                + "WHERE dropped_at > ? ORDER BY dropped_at",
                lastDropped, rs -> "dropped    duplicate of " + rs.getString(2)
                        + "  by the consumer's inbox (same ce_id)");
        try (PreparedStatement st = connection.prepareStatement(
                "SELECT aggregate_id, attempts, status, last_error FROM outbox "
                        + "WHERE attempts > 0 AND status <> 'PUBLISHED'");
                ResultSet rs = st.executeQuery()) {
            while (rs.next()) {
                String key = rs.getString(1) + "/" + rs.getString(3);
                int attempts = rs.getInt(2);
                if (!Integer.valueOf(attempts).equals(attemptsSeen.put(key, attempts))) {
                    String error = rs.getString(4) == null ? "" : rs.getString(4).replaceAll(":.*", "");
                    line("FAILED".equals(rs.getString(3))
                            ? "FAILED     " + rs.getString(1) + "  after " + attempts + " attempts (" + error
                                    + "); replay: UPDATE outbox SET status='PENDING', attempts=0, "
                                    + "next_attempt_at=now() WHERE status='FAILED'"
                            : "retrying   " + rs.getString(1) + "  attempt " + attempts + " failed: " + error);
                }
            }
        }
        status(written);
    }

    /** A line per row newer than {@code after} (column 1 is the row's time); returns the newest time shown. */
    private Timestamp since(String sql, Timestamp after, RowLine describe) throws SQLException {
        Timestamp newest = after;
        try (PreparedStatement st = connection.prepareStatement(sql)) {
            st.setTimestamp(1, after);
            try (ResultSet rs = st.executeQuery()) {
                while (rs.next()) {
                    line(describe.of(rs));
                    newest = rs.getTimestamp(1);
                }
            }
        }
        return newest;
    }

    private interface RowLine {
        String of(ResultSet row) throws SQLException;
    }

    private void status(int written) throws SQLException {
        try (PreparedStatement st = connection.prepareStatement(
                "SELECT count(CASE WHEN status = 'PUBLISHED' THEN 1 END), "
                        + "count(CASE WHEN status = 'FAILED' THEN 1 END), "
                        + "count(CASE WHEN status = 'PENDING' AND attempts > 0 THEN 1 END), "
                        + "count(CASE WHEN status = 'PENDING' THEN 1 END), "
                        + "(SELECT count(*) FROM received_orders) FROM outbox");
                ResultSet rs = st.executeQuery()) {
            rs.next();
            String text = String.format("[written %d | published %d | consumed %d | retrying %d | failed %d "
                    + "| backlog %d]",
                    written, rs.getLong(1), rs.getLong(5), rs.getLong(3), rs.getLong(2), rs.getLong(4));
            if (terminal) {
                out.print("\r\033[K" + text);
                statusShown = true;
            } else if (!text.equals(lastStatus)) {
                // not a terminal (a log, a pipe): a status line only when something changed
                out.println(text);
            }
            lastStatus = text;
            out.flush();
        }
    }

    private void clearStatus() {
        if (statusShown) {
            out.print("\r\033[K");
            statusShown = false;
        }
    }

    /** True when every written order was published (or failed) and every published one consumed. */
    boolean settled() throws SQLException {
        try (PreparedStatement st = connection.prepareStatement(
                "SELECT (SELECT count(*) FROM outbox WHERE status = 'PENDING') = 0 AND "
                        + "(SELECT count(DISTINCT ce_id) FROM received_orders) = "
                        + "(SELECT count(*) FROM outbox WHERE status = 'PUBLISHED')");
                ResultSet rs = st.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    void finish() {
        clearStatus();
        out.println();
    }
}
