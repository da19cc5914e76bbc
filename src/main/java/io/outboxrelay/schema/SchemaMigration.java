package io.outboxrelay.schema;

import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import org.flywaydb.core.Flyway;

/**
 * Applies the versioned migrations of db/migration to the configured outbox table. Each outbox table keeps its own
 * history table beside it, so several outboxes can share a schema; Flyway's advisory lock lets several relays start
 * at once.
 */
public final class SchemaMigration {

    /** A relay started before its database waits for it (up to about a day) instead of exiting. */
    private static final int CONNECT_RETRIES = 10_000;
    private static final int CONNECT_RETRIES_INTERVAL_SECONDS = 10;

    private SchemaMigration() {
    }

    public static void migrate(DataSource dataSource, TableName table) {
        var config = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .table(table.table() + "_schema_history")
                .placeholders(Map.of("table", table.qualified(), "table_name", table.table()))
                // the outbox usually shares its schema with the application's own tables
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .connectRetries(CONNECT_RETRIES)
                .connectRetriesInterval(CONNECT_RETRIES_INTERVAL_SECONDS);
        if (table.schema() != null) {
            config.schemas(table.schema());
        }
        config.load().migrate();
    }
}
