package io.outboxrelay.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;

import javax.sql.DataSource;

import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;
import org.postgresql.PGStatement;

/**
 * The console's statements (sql/console-*.sql) on the relay's pool, over plain JDBC: their filters are optional
 * parameters ("NULL or equal"), which camel-sql cannot leave out of the text. Each is planned for its values (a
 * server-side generic plan would not use the partial indexes the filters select).
 */
final class ConsoleDatabase {

    private final DataSource dataSource;
    private final TableName table;
    private final Map<String, String> statements = new HashMap<>();

    ConsoleDatabase(DataSource dataSource, TableName table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    TableName table() {
        return table;
    }

    Connection connect() throws SQLException {
        return dataSource.getConnection();
    }

    PreparedStatement prepare(Connection connection, String name) throws SQLException {
        String sql = statements.computeIfAbsent(name,
                n -> OutboxSql.resolved(n, Map.of("outbox.table", table.qualified())));
        PreparedStatement statement = connection.prepareStatement(sql);
        // an unnamed statement, planned with its parameter values each time
        statement.unwrap(PGStatement.class).setPrepareThreshold(0);
        return statement;
    }

    /** A timestamp as the API shows it (ISO-8601), or null. */
    static String time(OffsetDateTime time) {
        return time == null ? null : time.toString();
    }
}
