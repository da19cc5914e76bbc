package io.outboxrelay.inbox;

import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.Migrations;
import io.outboxrelay.sql.OutboxSql;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and upgrades the inbox table with the migrations of db/inbox, the way the outbox's are applied: Flyway, a
 * history table of its own beside the table ({@code <inbox>_schema_history}), placeholders for the validated name.
 * Java because Camel has no migration step. Lazy: the inbox template's routes ask {@link #ensureMigrated()} before
 * each message (one volatile read once done), so a relay that consumes nothing never creates an inbox, and a database
 * that is down only fails the message, which the consumer redelivers. The janitor cleans only an inbox in use here.
 */
public class InboxSchema {

    private static final Logger LOG = LoggerFactory.getLogger(InboxSchema.class);

    private final DataSource dataSource;
    private final TableName table;
    private final boolean migrate;
    private volatile boolean ready;

    /** @param migrate inbox.schema.migrate: false when the table is created by the application's own migrations */
    public InboxSchema(DataSource dataSource, TableName table, boolean migrate) {
        this.dataSource = dataSource;
        this.table = table;
        this.migrate = migrate;
    }

    /** For the postgresql-inbox-action Kamelet's bean: the table as its (schema-validated) parameter, migrated. */
    public InboxSchema(DataSource dataSource, String table) {
        this(dataSource, TableName.parse("table", table), true);
    }

    /**
     * sql/inbox-record.sql for this inbox's table: the postgresql-inbox-action Kamelet runs it as its CamelSqlQuery
     * header, the relay's template as {@code sql:ref:sql.inbox-record}.
     */
    public String recordStatement() {
        return OutboxSql.resolved("inbox-record", Map.of("inbox.table", table.qualified()));
    }

    /** Applies the migrations on first use; throws (the message fails, and is redelivered) while it cannot. */
    public void ensureMigrated() {
        if (!ready) {
            synchronized (this) {
                if (!ready) {
                    if (migrate) {
                        flyway().migrate();
                        LOG.info("Inbox {} ready", table.qualified());
                    }
                    ready = true;
                }
            }
        }
    }

    /** True once a consumer route of this process used the inbox: the janitor's condition. */
    public boolean isInUse() {
        return ready;
    }

    private Flyway flyway() {
        return Migrations.of(dataSource, "classpath:db/inbox", table, Map.of()).load();
    }
}
