package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Arrays;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import org.apache.camel.support.service.ServiceSupport;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LISTENs on the outbox's channel (notified by its insert trigger with the lowest seq inserted, migrations V2 and V6,
 * and by the operator's replay command with 'replay') on a connection of its own and wakes the claim loop for every
 * batch of notifications. While the database is unreachable it reconnects every second; polling goes on meanwhile,
 * so nothing depends on a notification arriving.
 */
public class InsertListener extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(InsertListener.class);
    private static final int WAIT_MILLIS = 1_000;

    private final DataSource dataSource;
    private final String channel;
    private final Notified onNotify;
    private volatile Thread thread;

    /** What a batch of notifications says. */
    public interface Notified {
        /**
         * @param replay   one of them is a replay (events older than any claimed may be pending again)
         * @param firstSeq the lowest seq the notified inserts wrote, Long.MAX_VALUE when none says
         */
        void notified(boolean replay, long firstSeq);
    }

    public InsertListener(DataSource dataSource, TableName table, Notified onNotify) {
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
                        onNotify.notified(Arrays.stream(notifications).anyMatch(n -> "replay".equals(n.getParameter())),
                                Arrays.stream(notifications).mapToLong(n -> firstSeq(n.getParameter())).min()
                                        .orElse(Long.MAX_VALUE));
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

    /** An insert's payload: its lowest seq (empty from an outbox not yet migrated to V6). */
    static long firstSeq(String payload) {
        if (payload == null || payload.isEmpty() || !Character.isDigit(payload.charAt(0))) {
            return Long.MAX_VALUE;
        }
        try {
            return Long.parseLong(payload);
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
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
