package io.outboxrelay.health;

import java.sql.Connection;
import java.util.Map;

import javax.sql.DataSource;

import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/** Readiness: the outbox database answers. A relay that cannot reach it cannot claim or mark anything. */
public class DatabaseHealthCheck extends AbstractHealthCheck {

    private static final int VALIDATION_TIMEOUT_SECONDS = 2;

    private final DataSource dataSource;

    public DatabaseHealthCheck(DataSource dataSource) {
        super("outbox", "database");
        this.dataSource = dataSource;
    }

    @Override
    public boolean isLiveness() {
        // an unreachable database is an outage to wait out, not a reason to restart the relay
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        try (Connection connection = dataSource.getConnection()) {
            if (connection.isValid(VALIDATION_TIMEOUT_SECONDS)) {
                builder.up();
            } else {
                builder.message("database connection is not valid").down();
            }
        } catch (Exception e) {
            builder.message("database unreachable: " + e.getMessage()).error(e).down();
        }
    }
}
