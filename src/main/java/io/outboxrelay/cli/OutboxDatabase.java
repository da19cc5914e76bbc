package io.outboxrelay.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.OperatorSettings;
import io.outboxrelay.sql.OutboxSql;
import org.postgresql.Driver;
import org.springframework.core.NestedExceptionUtils;

/**
 * One plain JDBC connection to the relay's database (PostgreSQL or MariaDB) for a command, its SQL
 * (src/main/resources/sql/&lt;dialect&gt;/cli-*.sql, the validated table name spliced in as the relay's statements
 * have it), and what a database error means to an operator.
 */
final class OutboxDatabase {

    private static final int CONNECT_TIMEOUT_SECONDS = 10;
    private static final Logger DRIVER_LOG = Logger.getLogger("org.postgresql");
    /** MariaDB's ER_SP_DOES_NOT_EXIST: a CALL of a procedure the outbox's migrations did not create. */
    private static final int MARIADB_NO_SUCH_PROCEDURE = 1305;

    private OutboxDatabase() {
    }

    static Connection connect(OperatorSettings settings) throws DatabaseException {
        if (settings.database() == Database.MARIADB) {
            return connectMariaDb(settings);
        }
        Properties properties = new Properties();
        properties.setProperty("user", settings.dbUser());
        properties.setProperty("password", settings.dbPassword());
        properties.setProperty("ApplicationName", "outbox-relay-cli");
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        properties.setProperty("loginTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        if (!parses(settings.dbUrl())) {
            throw new InvalidSettingException("outbox.db.url", settings.dbUrlForDisplay(),
                    "not a PostgreSQL JDBC URL the driver can parse");
        }
        try {
            return new Driver().connect(settings.dbUrl(), properties);
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot connect to the database at " + settings.dbUrlForDisplay() + ": " + message(e));
        }
    }

    /**
     * On MariaDB the session runs as the relay's do (config.RelayConfiguration): READ COMMITTED, so that a replay's
     * locking reads lock the rows they change and no others, and in UTC, so that timestamps read as instants.
     */
    private static Connection connectMariaDb(OperatorSettings settings) throws DatabaseException {
        Properties properties = new Properties();
        properties.setProperty("user", settings.dbUser());
        properties.setProperty("password", settings.dbPassword());
        properties.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS * 1000));
        properties.setProperty("connectionTimeZone", "UTC");
        properties.setProperty("forceConnectionTimeZoneToSession", "true");
        try {
            org.mariadb.jdbc.Configuration.parse(settings.dbUrl());
        } catch (SQLException e) {
            throw new InvalidSettingException("outbox.db.url", settings.dbUrlForDisplay(),
                    "not a MariaDB JDBC URL the driver can parse");
        }
        Connection connection;
        try {
            connection = new org.mariadb.jdbc.Driver().connect(settings.dbUrl(), properties);
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot connect to the database at " + settings.dbUrlForDisplay() + ": " + message(e));
        }
        try {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return connection;
        } catch (SQLException e) {
            throw failure(e, settings);
        }
    }

    /**
     * Whether the driver can parse the URL (a bad port, ...): a bad setting rather than an unreachable database. The
     * driver's own java.util.logging warning about it would add a line to the command's one-line message on stderr.
     */
    private static boolean parses(String url) {
        Level level = DRIVER_LOG.getLevel();
        DRIVER_LOG.setLevel(Level.OFF);
        try {
            return Driver.parseURL(url, null) != null;
        } finally {
            DRIVER_LOG.setLevel(level);
        }
    }

    /** A statement of sql/NAME.sql for the configured table. */
    static String sql(String name, OperatorSettings settings) {
        return OutboxSql.resolved(settings.database(), name, Map.of("outbox.table", settings.table().qualified()));
    }

    /**
     * A statement the relay runs too (sql/NAME.sql), prepared for plain JDBC: the relay's setting parameters
     * ({@code :#${bean:relaySettings.failedBlocksKey}}, the only one these statements use) bound from the settings.
     */
    static PreparedStatement prepareRelayStatement(Connection connection, String name, OperatorSettings settings)
            throws SQLException {
        String parameter = ":#${bean:relaySettings.failedBlocksKey}";
        String sql = sql(name, settings);
        int count = sql.split(Pattern.quote(parameter), -1).length - 1;
        PreparedStatement statement = connection.prepareStatement(sql.replace(parameter, "?"));
        for (int i = 1; i <= count; i++) {
            statement.setBoolean(i, settings.failedBlocksKey());
        }
        return statement;
    }

    /** A failed statement, told as an operator needs it. */
    static DatabaseException failure(SQLException e, OperatorSettings settings) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message;
        // PostgreSQL: no such table or schema; MariaDB: no such table, or no such procedure of its migrations
        if (state.equals("42P01") || state.equals("3F000") || state.equals("42S02")
                || settings.database() == Database.MARIADB && e.getErrorCode() == MARIADB_NO_SUCH_PROCEDURE) {
            message = "no outbox table " + settings.table().qualified() + " in the database at "
                    + settings.dbUrlForDisplay() + " (check outbox.table; the relay creates the table when it starts): "
                    + message(e);
        } else if (state.startsWith("08")) {
            message = "lost the connection to the database at " + settings.dbUrlForDisplay() + ": " + message(e);
        } else {
            message = "database error at " + settings.dbUrlForDisplay() + ": " + message(e)
                    + (state.isEmpty() ? "" : " (SQLState " + state + ")");
        }
        return new DatabaseException(message);
    }

    private static String message(SQLException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        // PostgreSQL's messages add lines such as "  Position: 23": the first line says it
        message = message.strip().lines().findFirst().orElse(message);
        // the driver's "The connection attempt failed." says why only in its cause (unknown host, no route, ...)
        Throwable root = NestedExceptionUtils.getMostSpecificCause(e);
        if (root != e && root.getMessage() != null && !message.contains(root.getMessage())) {
            message += " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return message;
    }

    /** The columns every listing of events starts with: id, seq and key, event type (in that order). */
    static Map<String, Object> eventRow(ResultSet rs) throws SQLException {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", rs.getString("id"));
        row.put("seq", rs.getLong("seq"));
        row.put("aggregate_type", rs.getString("aggregate_type"));
        row.put("aggregate_id", rs.getString("aggregate_id"));
        row.put("event_type", rs.getString("event_type"));
        return row;
    }
}
