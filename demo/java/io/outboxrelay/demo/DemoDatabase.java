package io.outboxrelay.demo;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.TestDatabase;

/**
 * The quick start's database (--db): a database of the demo's own, dropped and created again at each run, on the
 * local PostgreSQL (127.0.0.1:5432, user postgres) or MariaDB (127.0.0.1:3306, user root). What differs between the
 * two for the demo: the server, the user, the tables' types, a JSON parameter and a uuid read as text.
 */
final class DemoDatabase {

    private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/";
    private static final String MARIADB = "jdbc:mariadb://127.0.0.1:3306/";

    private final Database kind;
    private final String name;

    private DemoDatabase(Database kind, String name) {
        this.kind = kind;
        this.name = name;
    }

    /** @throws IllegalArgumentException naming the option, for a database other than postgresql or mariadb */
    static DemoDatabase of(String db, String name) {
        Database kind = switch (db) {
            case "postgresql" -> Database.POSTGRESQL;
            case "mariadb" -> Database.MARIADB;
            default -> throw new IllegalArgumentException("--db: expected postgresql or mariadb, got " + db);
        };
        if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("--database: expected a lower-case identifier, got " + name);
        }
        return new DemoDatabase(kind, name);
    }

    String url() {
        return server() + name;
    }

    /** The screen's line naming the database and how to look at it. */
    String describe() {
        return kind == Database.MARIADB
                ? "  MariaDB     " + url() + "   (a database of the demo's own: mariadb -uroot " + name + ")"
                : "  PostgreSQL  " + url() + "   (a database of the demo's own: psql -h 127.0.0.1 -U postgres " + name
                        + ")";
    }

    /** The relay's settings for it (environment variables). */
    Map<String, String> relayEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", url());
        env.put("OUTBOX_DB_USER", user());
        return env;
    }

    /** Drops the demo's database (ending the sessions still on it) and creates it again, empty. */
    void recreate() throws SQLException {
        String adminUrl = kind == Database.MARIADB ? server() : server() + "postgres";
        try (Connection admin = DriverManager.getConnection(adminUrl, user(), "");
                Statement st = admin.createStatement()) {
            TestDatabase.dropEndingSessions(admin, kind, name);
            st.execute("CREATE DATABASE " + name);
        }
    }

    /** One line for a server that cannot be reached (or refuses the demo's user), with how to start it. */
    String unreachable(SQLException e) {
        String cause = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        return kind == Database.MARIADB
                ? "MariaDB on 127.0.0.1:3306 does not answer to user root without a password (" + cause
                        + "); start it, e.g.: start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd"
                : "PostgreSQL on 127.0.0.1:5432 does not answer to user postgres without a password (" + cause
                        + "); start it, e.g.: pg_ctlcluster --skip-systemctl-redirect <version> main start";
    }

    /** The demo's own connection: each statement sees what is committed when it runs (the screen reads as it goes). */
    Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(url(), user(), "");
        connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return connection;
    }

    /** The service's orders table and the example consumer's tables (the inbox's own: the relay's migration). */
    void createSchema(Connection connection) throws SQLException {
        boolean mariaDb = kind == Database.MARIADB;
        String time = mariaDb ? "timestamp(6) NOT NULL DEFAULT current_timestamp(6)"
                : "timestamptz NOT NULL DEFAULT now()";
        String key = mariaDb ? "varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin" : "text";
        try (Statement st = connection.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS orders (id " + key + " PRIMARY KEY, customer text NOT NULL, "
                    + "total numeric(10,2) NOT NULL, created_at " + time + ")");
            // the consumer's side (examples/order-consumer.camel.yaml)
            st.execute("CREATE TABLE IF NOT EXISTS received_orders (ce_id " + key + " NOT NULL, order_id " + key
                    + " NOT NULL, body text, received_at " + time + ")");
            st.execute("CREATE TABLE IF NOT EXISTS inbox_duplicates (ce_id " + key + " NOT NULL, order_id " + key
                    + " NOT NULL, dropped_at " + time + ")");
        }
    }

    /** A JSON parameter of a writer's statement. */
    String json() {
        return kind == Database.MARIADB ? "?" : "?::jsonb";
    }

    /** The outbox's id read as text (the ce_id). */
    String idText() {
        return kind == Database.MARIADB ? "CAST(id AS char)" : "id::text";
    }

    private String server() {
        return kind == Database.MARIADB ? MARIADB : POSTGRES;
    }

    private String user() {
        return kind == Database.MARIADB ? "root" : "postgres";
    }
}
