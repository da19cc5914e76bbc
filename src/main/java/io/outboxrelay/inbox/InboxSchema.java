package io.outboxrelay.inbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.Migrations;
import io.outboxrelay.sql.OutboxSql;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and upgrades the inbox table with the migrations of db/inbox/&lt;dialect&gt; (settings.Database), the way the
 * outbox's are applied: Flyway, a history table of its own beside the table ({@code <inbox>_schema_history}),
 * placeholders for the validated name.
 * Java because Camel has no migration step. Lazy: the inbox template's routes ask {@link #ensureMigrated()} before
 * each message (one volatile read once done), so a relay that consumes nothing never creates an inbox, and a database
 * that is down only fails the message, which the consumer redelivers. The janitor cleans only an inbox in use here.
 */
public class InboxSchema {

    private static final Logger LOG = LoggerFactory.getLogger(InboxSchema.class);

    private final DataSource dataSource;
    private final TableName table;
    private final boolean migrate;
    /** The database of the data source; for the Kamelet, told by its connections' URL at first use. */
    private volatile Database database;
    private volatile String recordStatement;
    private volatile boolean ready;

    /**
     * @param database the relay's (outbox.db.url), which the inbox shares
     * @param migrate inbox.schema.migrate: false when the table is created by the application's own migrations
     */
    public InboxSchema(DataSource dataSource, Database database, TableName table, boolean migrate) {
        this.dataSource = dataSource;
        this.database = database;
        this.table = table;
        this.migrate = migrate;
    }

    /**
     * For the postgresql-inbox-action Kamelet's bean: the table as its (schema-validated) parameter, migrated; the
     * database (PostgreSQL or MariaDB) is the one the Integration's data source connects to.
     */
    public InboxSchema(DataSource dataSource, String table) {
        this(dataSource, null, TableName.parse("table", table), true);
    }

    /**
     * sql/&lt;dialect&gt;/inbox-record.sql for this inbox's table: the postgresql-inbox-action Kamelet runs it as its
     * CamelSqlQuery header (after {@link #ensureMigrated()}), the relay's template as {@code sql:ref:sql.inbox-record}.
     */
    public String recordStatement() {
        if (recordStatement == null) {
            recordStatement = OutboxSql.resolved(database(), "inbox-record", Map.of("inbox.table", table.qualified()));
        }
        return recordStatement;
    }

    /** Applies the migrations on first use; throws (the message fails, and is redelivered) while it cannot. */
    public void ensureMigrated() {
        if (!ready) {
            synchronized (this) {
                if (!ready) {
                    Database of = database();
                    if (migrate) {
                        flyway(of).migrate();
                        LOG.info("Inbox {} ready ({})", table.qualified(), of.dialect());
                    }
                    ready = true;
                }
            }
        }
    }

    private Database database() {
        if (database == null) {
            try (Connection c = dataSource.getConnection()) {
                database = Database.of("dataSource", c.getMetaData().getURL());
            } catch (SQLException e) {
                throw new IllegalStateException("cannot reach the inbox's database", e);
            }
        }
        return database;
    }

    /** True once a consumer route of this process used the inbox: the janitor's condition. */
    public boolean isInUse() {
        return ready;
    }

    private Flyway flyway(Database of) {
        return Migrations.of(dataSource, "classpath:db/inbox/" + of.dialect(), table, Map.of()).load();
    }
}
