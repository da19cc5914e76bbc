package io.outboxrelay.health;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

import io.outboxrelay.schema.SchemaMigration;
import org.apache.camel.Service;
import org.springframework.jdbc.support.JdbcUtils;

/**
 * Readiness: the outbox database answers and the outbox schema is in place. A relay that cannot reach it cannot
 * claim or mark anything. The probe uses a connection of its own, outside the relay's pool: it neither waits for a
 * pooled connection while batches hold them nor takes one from them, and a broken one is replaced at the next probe.
 * A Camel service only to close that connection when the context stops.
 */
public class DatabaseHealthCheck extends BackgroundHealthCheck implements Service {

    private static final int TIMEOUT_SECONDS = (int) NO_ANSWER.toSeconds();

    private final String url;
    private final Properties connectionProperties = new Properties();
    private final SchemaMigration schema;
    private Connection connection;

    public DatabaseHealthCheck(String url, String user, String password, SchemaMigration schema) {
        super("database");
        this.url = url;
        this.schema = schema;
        connectionProperties.setProperty("user", user);
        connectionProperties.setProperty("password", password);
        connectionProperties.setProperty("ApplicationName", "outbox-relay health");
        connectionProperties.setProperty("connectTimeout", Integer.toString(TIMEOUT_SECONDS));
        connectionProperties.setProperty("socketTimeout", Integer.toString(TIMEOUT_SECONDS));
    }

    @Override
    protected String probe() {
        try {
            if (connection == null || !connection.isValid(TIMEOUT_SECONDS)) {
                disconnect();
                connection = DriverManager.getConnection(url, connectionProperties);
            }
            return schema.isMigrated() ? null : "outbox schema not migrated yet";
        } catch (SQLException e) {
            disconnect();
            return "database unreachable: " + e.getMessage();
        }
    }

    private void disconnect() {
        JdbcUtils.closeConnection(connection);
        connection = null;
    }

    @Override
    public void start() {
        // the health route probes
    }

    @Override
    public void stop() {
        disconnect();
    }
}
