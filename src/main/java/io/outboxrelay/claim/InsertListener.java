package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.Statement;

import javax.sql.DataSource;

import org.apache.camel.support.service.ServiceSupport;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * outbox.wake-up=notify, an opt-in: LISTENs on the outbox's channel (notified by an insert trigger the user installs,
 * docs/ordering-and-guarantees.md, and by the operator's replay command) on a connection of its own and wakes the
 * claim route for every batch of notifications. Not the default: PostgreSQL serializes the commits of every
 * transaction that notified (a cluster-wide lock held through the WAL flush), see {@link NewEventsWatch}. Java because
 * Camel 4.18 has no PostgreSQL LISTEN consumer (camel-pgevent is not published at 4.18.0) and camel-sql cannot wait
 * for notifications. While the database is unreachable it reconnects every second (one line when it breaks, one when
 * it is back); the claim route's timer polls meanwhile, so nothing depends on a notification arriving.
 */
public class InsertListener extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(InsertListener.class);
    private static final int WAIT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable wakeClaims;
    private volatile Thread thread;
    private boolean broken;

    /** @param channel the outbox table's qualified name */
    public InsertListener(DataSource dataSource, String channel, Runnable wakeClaims) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wakeClaims = wakeClaims;
    }

    @Override
    protected void doStart() {
        thread = new Thread(this::listen, "outbox-insert-listener");
        thread.setDaemon(true);
        thread.start();
    }

    private void listen() {
        while (thread != null) {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("LISTEN \"" + channel + "\"");
                if (broken) {
                    LOG.info("Insert notifications available again");
                    broken = false;
                }
                // a wake-up at once: events may have been committed while nobody listened
                wakeClaims.run();
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (thread != null) {
                    var notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        wakeClaims.run();
                    }
                }
            } catch (Exception e) {
                if (thread != null) {
                    if (!broken) {
                        LOG.warn("Insert notifications unavailable, claims rely on polling until they are back: {}",
                                e.getMessage());
                        broken = true;
                    }
                    pause();
                }
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void doStop() throws InterruptedException {
        Thread running = thread;
        thread = null;
        if (running != null) {
            running.join(WAIT_MILLIS * 3L);
        }
    }
}
