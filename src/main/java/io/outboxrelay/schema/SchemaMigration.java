package io.outboxrelay.schema;

import java.util.Map;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.SettingsCatalogue;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.Migrations;
import org.apache.camel.support.service.ServiceSupport;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.NestedExceptionUtils;

/**
 * Applies the versioned migrations of db/migration/&lt;dialect&gt; (settings.Database) to the configured outbox table,
 * after checking the server is one the outbox can live on (a MariaDB older than 10.7 is bad configuration). Each outbox
 * table keeps its own history table beside it, so several outboxes can share a schema; Flyway's advisory lock lets
 * several relays start at once. A Camel service: it migrates as the context starts. A database that is down at startup
 * is not an error: the heartbeat route calls {@link #migrateSchema()} before each beat, which migrates as soon as the
 * database answers. An outbox already at {@link #LATEST_VERSION} is recognised by one query of its history table,
 * without Flyway (loading and scanning it is most of a second of the relay's start).
 */
public class SchemaMigration extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaMigration.class);
    /** The highest V&lt;n&gt;__ migration in db/migration/postgresql (SchemaMigrationTest checks it). */
    static final int LATEST_VERSION = 13;
    /** The highest V&lt;n&gt;__ migration in db/migration/mariadb (SchemaMigrationTest checks it). */
    static final int LATEST_MARIADB_VERSION = 5;

    private final DataSource dataSource;
    private final Database database;
    private final String dbUrl;
    private final TableName table;
    private final int partitions;
    private final boolean enabled;
    private volatile boolean ready;
    private boolean failing;

    /**
     * @param partitions outbox.partitions: the count a new outbox is created with, and that an existing one must have
     */
    public SchemaMigration(DataSource dataSource, TableName table, int partitions, boolean enabled) {
        this(dataSource, Database.POSTGRESQL, "", table, partitions, enabled);
    }

    /** @param dbUrl outbox.db.url, named with a server too old for the outbox */
    public SchemaMigration(DataSource dataSource, Database database, String dbUrl, TableName table, int partitions,
            boolean enabled) {
        this.dataSource = dataSource;
        this.database = database;
        this.dbUrl = dbUrl;
        this.table = table;
        this.partitions = partitions;
        this.enabled = enabled;
    }

    private Flyway flyway() {
        return Migrations.of(dataSource, "classpath:db/migration/" + database.dialect(), table,
                        Map.of("partitions", Integer.toString(partitions)))
                // CREATE INDEX CONCURRENTLY (V3) waits for every open transaction, Flyway's own lock transaction too;
                // a session-level advisory lock still keeps concurrent relays from migrating at once
                .configuration(Map.of("flyway.postgresql.transactional.lock", "false"))
                .load();
    }

    @Override
    protected void doStart() {
        migrateSchema();
    }

    /** @return true once the migrations are applied (or migration is turned off) and checked, without trying */
    public boolean isMigrated() {
        return ready;
    }

    /**
     * Migrates the outbox unless that was done (or migration is turned off): once done, answers at once.
     *
     * @return true once the migrations are applied (or migration is turned off) and checked
     */
    public boolean migrateSchema() {
        if (!ready) {
            synchronized (this) {
                if (!ready) {
                    try {
                        checkServer();
                        if (enabled && !upToDate()) {
                            flyway().migrate();
                        }
                        checkPartitions();
                        ready = true;
                        if (failing) {
                            LOG.info("Outbox schema ready");
                        }
                    } catch (InvalidSettingException e) {
                        throw e;
                    } catch (RuntimeException | SQLException e) {
                        // one line when it starts failing, one when it is ready: the heartbeat asks every few seconds
                        if (!failing) {
                            LOG.warn("Outbox schema not ready yet, will retry until it is: {}", rootMessage(e));
                            failing = true;
                        }
                    }
                }
            }
        }
        return ready;
    }

    /** Whether the outbox's history says every bundled migration was applied; false also when it has none yet. */
    private boolean upToDate() {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT max(CAST(version AS integer)) FROM "
                        + (table.schema() == null ? "" : table.schema() + ".") + table.table() + "_schema_history"
                        + " WHERE success AND version IS NOT NULL")) {
            return rs.next()
                    && rs.getInt(1) >= (database == Database.MARIADB ? LATEST_MARIADB_VERSION : LATEST_VERSION);
        } catch (SQLException e) {
            // no history table yet (a new outbox), or the database is down: Flyway decides, or reports it
            return false;
        }
    }

    private void checkServer() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            // the URL without its query, which may hold a password
            database.checkServerVersion(SettingsCatalogue.DB_URL.key(), dbUrl.replaceFirst("\\?.*", ""),
                    c.getMetaData().getDatabaseProductVersion());
        }
    }

    /**
     * The outbox's partition count is set when it is created; every relay on it must use the same, or two of them
     * would hash a key to different partitions.
     */
    private void checkPartitions() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table.qualified() + "_partitions")) {
            rs.next();
            int existing = rs.getInt(1);
            if (existing != partitions) {
                throw new InvalidSettingException("outbox.partitions", Integer.toString(partitions),
                        "the outbox " + table.qualified() + " has " + existing + " partitions; every relay on it must "
                                + "use outbox.partitions=" + existing);
            }
        }
    }

    private static String rootMessage(Throwable e) {
        return NestedExceptionUtils.getMostSpecificCause(e).getMessage();
    }
}
