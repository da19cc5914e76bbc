package io.outboxrelay.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Inserts events the way applications do: one committed transaction each, at a steady rate, over many keys. Stops
 * by itself after {@code maxEvents}. Insert errors (a database restart) are retried, so every counted event exists.
 */
public final class ContinuousWriter implements AutoCloseable {

    private final TestDatabase db;
    private final String type;
    private final int keys;
    private final int perSecond;
    private final int maxEvents;
    private final AtomicInteger written = new AtomicInteger();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    public ContinuousWriter(TestDatabase db, String type, int keys, int perSecond, int maxEvents) {
        this.db = db;
        this.type = type;
        this.keys = keys;
        this.perSecond = perSecond;
        this.maxEvents = maxEvents;
        this.thread = new Thread(this::run, "continuous-writer");
        thread.start();
    }

    private void run() {
        long start = System.nanoTime();
        Connection connection = null;
        while (running.get() && written.get() < maxEvents) {
            long due = start + (long) written.get() * 1_000_000_000L / perSecond;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
                continue;
            }
            try {
                if (connection == null) {
                    connection = db.connect();
                }
                try (PreparedStatement ps = connection.prepareStatement(
                        "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                                + "VALUES (?, ?, 'E', " + db.json() + ")")) {
                    int n = written.get();
                    ps.setString(1, type);
                    ps.setString(2, "key-" + ThreadLocalRandom.current().nextInt(keys));
                    ps.setString(3, "{\"n\": " + n + "}");
                    ps.executeUpdate();
                    written.incrementAndGet();
                }
            } catch (SQLException e) {
                closeQuietly(connection);
                connection = null;
                java.util.concurrent.locks.LockSupport.parkNanos(200_000_000L);
            }
        }
        closeQuietly(connection);
    }

    public int written() {
        return written.get();
    }

    /** Stops writing and returns how many events were committed. */
    public int stop() throws InterruptedException {
        running.set(false);
        thread.join();
        return written.get();
    }

    public void awaitDone() throws InterruptedException {
        thread.join();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    private static void closeQuietly(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // already broken
            }
        }
    }
}
