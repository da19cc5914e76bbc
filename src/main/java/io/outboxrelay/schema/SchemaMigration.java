package io.outboxrelay.schema;

import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned migrations of db/migration to the configured outbox table. Each outbox table keeps its own
 * history table beside it, so several outboxes can share a schema; Flyway's advisory lock lets several relays start
 * at once. A database that is down at startup is not an error: the claim route asks {@link #isReady()} before each
 * poll, which migrates as soon as the database answers.
 */
public class SchemaMigration {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaMigration.class);

    private final Flyway flyway;
    private volatile boolean ready;

    public SchemaMigration(DataSource dataSource, TableName table, boolean enabled) {
        this.ready = !enabled;
        var config = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .table(table.table() + "_schema_history")
                .placeholders(Map.of("table", table.qualified(), "table_name", table.table()))
                // the outbox usually shares its schema with the application's own tables
                .baselineOnMigrate(true)
                .baselineVersion("0");
        if (table.schema() != null) {
            config.schemas(table.schema());
        }
        this.flyway = config.load();
    }

    /** @return true once the migrations are applied (or migration is turned off), without trying */
    public boolean isMigrated() {
        return ready;
    }

    /** @return true once the migrations are applied (or migration is turned off); tries again while it is not */
    public boolean isReady() {
        if (!ready) {
            synchronized (this) {
                if (!ready) {
                    try {
                        flyway.migrate();
                        ready = true;
                    } catch (RuntimeException e) {
                        LOG.warn("Outbox schema not ready yet, will retry: {}", rootMessage(e));
                    }
                }
            }
        }
        return ready;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
