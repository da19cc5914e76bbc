package io.outboxrelay.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.outboxrelay.settings.Database;

import static org.awaitility.Awaitility.await;

/**
 * Business transactions that commit long after their INSERT, and the time from each commit to its event's
 * publication (published_at, the mark after the broker's acknowledgement): what the late-commit tests and the
 * latecommit benchmark measure (contract §4, "promptly after commit").
 */
public final class LateTransactions {

    /** An event whose transaction committed at {@code committedAtMillis} (this JVM's clock, the database's machine). */
    public record Committed(UUID id, long committedAtMillis) {
    }

    private LateTransactions() {
    }

    /**
     * An unrelated transaction kept open until closed, as a report, a pg_dump or a session idle in transaction does:
     * it holds the oldest running transaction id back the whole time. On MariaDB it has written a row of another table
     * (InnoDB lists it among the running transactions that changed rows, as it lists the outbox's writers).
     */
    public static AutoCloseable holdStranger(TestDatabase db) throws SQLException {
        Connection stranger = db.connect();
        if (db.database() == Database.MARIADB) {
            try (Statement st = stranger.createStatement()) {
                st.execute("CREATE TABLE IF NOT EXISTS stranger_work (n int)");
            }
        }
        stranger.setAutoCommit(false);
        try (PreparedStatement txid = stranger.prepareStatement(db.database() == Database.MARIADB
                ? "INSERT INTO stranger_work VALUES (1)" : "SELECT txid_current()")) {
            txid.execute();
        }
        return () -> {
            stranger.rollback();
            stranger.close();
        };
    }

    /**
     * One transaction per delay, all at once, each on a connection of its own: it inserts one event of its own key,
     * works for its delay, and commits.
     */
    public static List<Committed> write(TestDatabase db, String type, List<Duration> delays) throws Exception {
        ExecutorService writers = Executors.newFixedThreadPool(delays.size());
        try {
            List<Future<Committed>> commits = new ArrayList<>();
            for (Duration delay : delays) {
                commits.add(writers.submit(() -> writeOne(db, type, delay)));
            }
            List<Committed> committed = new ArrayList<>();
            for (Future<Committed> commit : commits) {
                committed.add(commit.get());
            }
            return committed;
        } finally {
            writers.shutdownNow();
        }
    }

    private static Committed writeOne(TestDatabase db, String type, Duration delay) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection writer = db.connect()) {
            writer.setAutoCommit(false);
            try (PreparedStatement insert = writer.prepareStatement("INSERT INTO outbox (id, aggregate_type, "
                    + "aggregate_id, event_type, payload) VALUES (?, ?, ?, 'Late', '{}')")) {
                insert.setObject(1, id);
                insert.setString(2, type);
                insert.setString(3, "late-" + id);
                insert.executeUpdate();
            }
            // the rest of the business transaction's work, in the database
            try (PreparedStatement work = writer.prepareStatement(db.database() == Database.MARIADB
                    ? "SELECT SLEEP(?)" : "SELECT pg_sleep(?)")) {
                work.setDouble(1, delay.toMillis() / 1000.0);
                work.executeQuery().close();
            }
            writer.commit();
            return new Committed(id, System.currentTimeMillis());
        }
    }

    /**
     * Milliseconds from each commit to its event's publication, once every late event of the type is published
     * (within the timeout).
     */
    public static long[] commitToPublishMillis(TestDatabase db, String type, List<Committed> committed,
            Duration timeout) {
        await("every late event published").atMost(timeout).until(() -> db.count("SELECT count(*) FROM outbox "
                + "WHERE aggregate_type = ? AND event_type = 'Late' AND status = 'PUBLISHED'", type)
                == committed.size());
        Map<String, Timestamp> published = new HashMap<>();
        for (Map<String, Object> row : db.query("SELECT id, published_at FROM outbox "
                + "WHERE aggregate_type = ? AND event_type = 'Late'", type)) {
            published.put(String.valueOf(row.get("id")), (Timestamp) row.get("published_at"));
        }
        return committed.stream()
                .mapToLong(c -> published.get(c.id().toString()).getTime() - c.committedAtMillis())
                .toArray();
    }
}
