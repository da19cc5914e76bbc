package io.outboxrelay.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.UUID;

import io.outboxrelay.settings.Database;

/**
 * A list of event ids as one statement parameter, for the statements run over plain JDBC (the operator commands, the
 * console, the replay): a uuid[] on PostgreSQL; JSON text on MariaDB, which has no arrays and reads the list with
 * JSON_TABLE (as {@link JsonArrayParameters} hands the relay's own lists to its statements).
 */
public final class SqlLists {

    private SqlLists() {
    }

    /** @return the parameter for setObject, or null for no list (ids null or empty) */
    public static Object uuids(Connection connection, Database database, Collection<UUID> ids) throws SQLException {
        if (ids == null || ids.isEmpty()) {
            return null;
        }
        if (database == Database.MARIADB) {
            return JsonArrayParameters.json(ids.stream().map(UUID::toString).toArray(String[]::new));
        }
        return connection.createArrayOf("uuid", ids.toArray());
    }
}
