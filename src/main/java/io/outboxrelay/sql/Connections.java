package io.outboxrelay.sql;

import java.sql.Connection;
import java.sql.SQLException;

/** For the relay's long-held connections (claim loop, heartbeat, health check), dropped after a failed statement. */
public final class Connections {

    private Connections() {
    }

    /** Closes a connection that may already be broken; its close failing says nothing new. Null is fine. */
    public static void closeQuietly(Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException e) {
            // already broken
        }
    }
}
