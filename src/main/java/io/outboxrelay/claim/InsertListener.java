package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.Statement;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import org.apache.camel.support.service.ServiceSupport;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTENs on the outbox's channel (notified by its insert trigger, migration V2) on a connection of its own and
 * wakes the claim scheduler for every notification. While the database is unreachable it reconnects every second;
 * polling goes on meanwhile, so nothing depends on a notification arriving.
 */
public class InsertListener extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(InsertListener.class);
    private static final int WAIT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable onInsert;
    private volatile Thread thread;

    public InsertListener(DataSource dataSource, TableName table, Runnable onInsert) {
        this.dataSource = dataSource;
        this.channel = table.qualified();
        this.onInsert = onInsert;
    }

    @Override
    protected void doStart() {
        thread = new Thread(this::listen, "outbox-insert-listener");
        thread.setDaemon(true);
        thread.start();
    }

    private void listen() {
        while (thread != null) {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("LISTEN \"" + channel + "\"");
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (thread != null) {
                    var notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null && notifications.length > 0) {
                        onInsert.run();
                    }
                }
            } catch (Exception e) {
                if (thread != null) {
                    LOG.debug("Insert notifications unavailable, retrying: {}", e.getMessage());
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
