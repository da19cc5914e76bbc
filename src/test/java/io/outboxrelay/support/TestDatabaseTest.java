package io.outboxrelay.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A test database is dropped also while a leaked session still holds it: on MariaDB, whose DROP DATABASE would wait
 * for that session's metadata locks (for a year, by default), the sessions on it are killed first.
 */
@Tag("services")
class TestDatabaseTest {

    @Test
    void closeDropsAMariaDbDatabaseWhoseLeakedSessionHoldsATransactionOpen() throws Exception {
        TestDatabase db = TestDatabase.create(Database.MARIADB);
        String name = db.url().substring(db.url().lastIndexOf('/') + 1);
        db.update("CREATE TABLE leaked (n int)");
        try (Connection leaked = db.connect(); Statement st = leaked.createStatement()) {
            leaked.setAutoCommit(false);
            st.executeUpdate("INSERT INTO leaked VALUES (1)");

            // generous: without the kill it would not end at all
            CompletableFuture.runAsync(db::close).get(60, TimeUnit.SECONDS);
        }
        try (Connection server = DriverManager.getConnection(db.url().substring(0, db.url().lastIndexOf('/') + 1),
                db.user(), ""); PreparedStatement ps = server.prepareStatement(
                        "SELECT count(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(0, rs.getInt(1), name + " dropped");
            }
        }
    }
}
