package io.outboxrelay.sql;

import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.settings.TableName;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * Flyway set up for one of the relay's tables (the outbox, the inbox): its versioned migrations, a history table of
 * its own beside it ({@code <table>_schema_history}), in its schema, with placeholders for its validated name; the
 * table usually shares a schema with the application's own tables, hence the baseline at version 0.
 */
public final class Migrations {

    private Migrations() {
    }

    /** @param placeholders more placeholders than {@code table} (qualified) and {@code table_name} */
    public static FluentConfiguration of(DataSource dataSource, String location, TableName table,
            Map<String, String> placeholders) {
        Map<String, String> all = new HashMap<>(placeholders);
        all.put("table", table.qualified());
        all.put("table_name", table.table());
        FluentConfiguration config = Flyway.configure()
                .dataSource(dataSource)
                .locations(location)
                .table(table.table() + "_schema_history")
                .placeholders(all)
                .baselineOnMigrate(true)
                .baselineVersion("0");
        if (table.schema() != null) {
            config.schemas(table.schema());
        }
        return config;
    }
}
