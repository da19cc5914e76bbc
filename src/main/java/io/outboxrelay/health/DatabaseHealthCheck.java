package io.outboxrelay.health;

import java.sql.Connection;
import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.schema.SchemaMigration;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;

/**
 * Readiness: the outbox database answers and the outbox schema is in place. A relay that cannot reach it cannot
 * claim or mark anything.
 */
public class DatabaseHealthCheck extends AbstractHealthCheck {

    private static final int VALIDATION_TIMEOUT_SECONDS = 2;

    private final DataSource dataSource;
    private final SchemaMigration schema;

    public DatabaseHealthCheck(DataSource dataSource, SchemaMigration schema) {
        super("outbox", "database");
        this.dataSource = dataSource;
        this.schema = schema;
    }

    @Override
    public boolean isLiveness() {
        // an unreachable database is an outage to wait out, not a reason to restart the relay
        return false;
    }

    @Override
    protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.isValid(VALIDATION_TIMEOUT_SECONDS)) {
                builder.message("database connection is not valid").down();
            } else if (!schema.isMigrated()) {
                builder.message("outbox schema not migrated yet").down();
            } else {
                builder.up();
            }
        } catch (Exception e) {
            builder.message("database unreachable: " + e.getMessage()).error(e).down();
        }
    }
}
