package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import org.apache.camel.support.service.ServiceSupport;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTENs on the outbox's channel (notified by its insert trigger, migration V2, and by the operator's replay command)
 * on a connection of its own and wakes the claim loop for every notification. While the database is unreachable it reconnects every second;
 * polling goes on meanwhile, so nothing depends on a notification arriving.
 */
public class InsertListener extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(InsertListener.class);
    private static final int WAIT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final String channel;
    private final Consumer<Boolean> onNotify;
    private volatile Thread thread;

    /** @param onNotify told of every batch of notifications: true when one is a replay ('replay' payload) */
    public InsertListener(DataSource dataSource, TableName table, Consumer<Boolean> onNotify) {
        this.dataSource = dataSource;
        this.channel = table.qualified();
        this.onNotify = onNotify;
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
                        onNotify.accept(Arrays.stream(notifications).anyMatch(n -> "replay".equals(n.getParameter())));
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
