package io.outboxrelay.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own on the machine's real PostgreSQL (127.0.0.1:5432, user postgres) or MariaDB (127.0.0.1:3306,
 * user root), created for one test class and dropped after it. Small JDBC helpers keep the tests about behaviour, not
 * plumbing. Its drop ({@link #dropEndingSessions}) also serves the quick start's database, because demo/java compiles
 * with the tests and already reuses their helpers while the relay's own code never drops a database.
 */
public final class TestDatabase implements AutoCloseable {

    private static final String SERVER = System.getProperty("test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/");
    private static final String MARIADB_SERVER = System.getProperty("test.mariadb.url",
            "jdbc:mariadb://127.0.0.1:3306/");

    private final Database database;
    private final String server;
    private final String name;

    private TestDatabase(Database database, String server, String name) {
        this.database = database;
        this.server = server;
        this.name = name;
    }

    public static TestDatabase create() {
        return createOn(SERVER);
    }

    /** A database of its own on the machine's server of the given kind. */
    public static TestDatabase create(Database database) {
        return database == Database.MARIADB ? createOn(Database.MARIADB, MARIADB_SERVER) : create();
    }

    /** A database someone else created (and drops) on the shared server. */
    public static TestDatabase existing(String name) {
        return existing(Database.POSTGRESQL, name);
    }

    /** A database someone else created on the machine's server of the given kind ({@link #close()} drops it). */
    public static TestDatabase existing(Database database, String name) {
        return new TestDatabase(database, database == Database.MARIADB ? MARIADB_SERVER : SERVER, name);
    }

    /** @param server a JDBC URL ending in '/', e.g. jdbc:postgresql://127.0.0.1:5499/ */
    public static TestDatabase createOn(String server) {
        return createOn(Database.POSTGRESQL, server);
    }

    /** A database of its own on the given server of the given kind (a JDBC URL ending in '/'). */
    public static TestDatabase createOn(Database database, String server) {
        String name = "relay_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        TestDatabase db = new TestDatabase(database, server, name);
        try (Connection admin = db.admin(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database on " + server, e);
        }
        return db;
    }

    public Database database() {
        return database;
    }

    public String url() {
        return server + name;
    }

    /** The user the relay and the tests connect as (outbox.db.user). */
    public String user() {
        return database == Database.MARIADB ? "root" : "postgres";
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), "");
    }

    /** A data source on this database, as the relay's user (for the migrations without a relay, a Kamelet's bean). */
    public DataSource dataSource() {
        if (database == Database.MARIADB) {
            try {
                MariaDbDataSource dataSource = new MariaDbDataSource(url());
                dataSource.setUser(user());
                return dataSource;
            } catch (SQLException e) {
                throw new IllegalStateException(url(), e);
            }
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url());
        dataSource.setUser(user());
        return dataSource;
    }

    /** A JSON parameter in a writer's statement: {@code ?::jsonb} on PostgreSQL, {@code ?} on MariaDB (contract §2). */
    public String json() {
        return database == Database.MARIADB ? "?" : "?::jsonb";
    }

    /** The database's name (on MariaDB also a schema a table name may be qualified with). */
    public String name() {
        return name;
    }

    /** An SQL expression: the current time moved by some seconds (negative: ago), in microseconds on both. */
    public String nowPlus(long seconds) {
        return database == Database.MARIADB ? "(now(6) + INTERVAL " + seconds + " SECOND)"
                : "(now() + interval '" + seconds + " seconds')";
    }

    /** A column read as text (a uuid, a JSON document): CAST AS text on PostgreSQL, CAST AS char on MariaDB. */
    public String text(String column) {
        return "CAST(" + column + (database == Database.MARIADB ? " AS char)" : " AS text)");
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(database == Database.MARIADB ? server : server + "postgres", user(), "");
    }

    public int update(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public List<Map<String, Object>> query(String sql, Object... params) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                List<Map<String, Object>> rows = new ArrayList<>();
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Map<String, Object> row = new HashMap<>();
                    for (int i = 1; i <= columns; i++) {
                        row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                    }
                    rows.add(row);
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    public long count(String sql, Object... params) {
        return ((Number) query(sql, params).get(0).values().iterator().next()).longValue();
    }

    /** Drops the database, ending the sessions still connected to it first (a leaked one cannot hold the drop). */
    @Override
    public void close() {
        try (Connection admin = admin()) {
            dropEndingSessions(admin, database, name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop test database " + name, e);
        }
    }

    /**
     * Drops the named database on the admin connection's server, ending the sessions still connected to it first.
     * MariaDB has no DROP DATABASE ... WITH (FORCE): its sessions on the database are killed one by one.
     */
    public static void dropEndingSessions(Connection admin, Database database, String name) throws SQLException {
        if (database == Database.MARIADB) {
            killSessions(admin, name);
        }
        try (Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + (database == Database.MARIADB ? "" : " WITH (FORCE)"));
        }
    }

    private static void killSessions(Connection admin, String name) throws SQLException {
        List<Long> sessions = new ArrayList<>();
        try (PreparedStatement ps = admin.prepareStatement(
                "SELECT id FROM information_schema.PROCESSLIST WHERE db = ? AND id <> CONNECTION_ID()")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    sessions.add(rs.getLong(1));
                }
            }
        }
        for (long session : sessions) {
            try (Statement st = admin.createStatement()) {
                st.execute("KILL CONNECTION " + session);
            } catch (SQLException e) {
                // it ended by itself meanwhile ("Unknown thread id")
            }
        }
    }
}
