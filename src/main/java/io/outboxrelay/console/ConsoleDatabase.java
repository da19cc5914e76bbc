package io.outboxrelay.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;
import org.postgresql.PGStatement;

/**
 * The console's statements (sql/&lt;dialect&gt;/console-*.sql) on the relay's pool, over plain JDBC: their filters are
 * optional parameters ("NULL or equal"), which camel-sql cannot leave out of the text. On PostgreSQL each is planned
 * for its values (a server-side generic plan would not use the partial indexes the filters select); MariaDB's driver
 * sends the values in the text anyway.
 */
final class ConsoleDatabase {

    private final DataSource dataSource;
    private final Database database;
    private final TableName table;
    private final Map<String, String> statements = new HashMap<>();

    ConsoleDatabase(DataSource dataSource, Database database, TableName table) {
        this.dataSource = dataSource;
        this.database = database;
        this.table = table;
    }

    Database database() {
        return database;
    }

    TableName table() {
        return table;
    }

    Connection connect() throws SQLException {
        return dataSource.getConnection();
    }

    PreparedStatement prepare(Connection connection, String name) throws SQLException {
        String sql = statements.computeIfAbsent(name,
                n -> OutboxSql.resolved(database, n, Map.of("outbox.table", table.qualified())));
        PreparedStatement statement = connection.prepareStatement(sql);
        if (database == Database.POSTGRESQL) {
            // an unnamed statement, planned with its parameter values each time
            statement.unwrap(PGStatement.class).setPrepareThreshold(0);
        }
        return statement;
    }

    /** A timestamp as the API shows it (ISO-8601), or null. */
    static String time(OffsetDateTime time) {
        return time == null ? null : time.toString();
    }
}
