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

/**
 * A database of its own on the machine's real PostgreSQL (127.0.0.1:5432, user postgres), created for one test
 * class and dropped after it. Small JDBC helpers keep the tests about behaviour, not plumbing.
 */
public final class TestDatabase implements AutoCloseable {

    private static final String SERVER = System.getProperty("test.postgres.url", "jdbc:postgresql://127.0.0.1:5432/");
    private static final String USER = "postgres";

    private final String server;
    private final String name;

    private TestDatabase(String server, String name) {
        this.server = server;
        this.name = name;
    }

    public static TestDatabase create() {
        return createOn(SERVER);
    }

    /** A database someone else created (and drops) on the shared server. */
    public static TestDatabase existing(String name) {
        return new TestDatabase(SERVER, name);
    }

    /** @param server a JDBC URL ending in '/', e.g. jdbc:postgresql://127.0.0.1:5499/ */
    public static TestDatabase createOn(String server) {
        String name = "relay_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection admin = DriverManager.getConnection(server + "postgres", USER, "");
                Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database on " + server, e);
        }
        return new TestDatabase(server, name);
    }

    public String url() {
        return server + name;
    }

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), USER, "");
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

    @Override
    public void close() {
        try (Connection admin = DriverManager.getConnection(server + "postgres", USER, "");
                Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop test database " + name, e);
        }
    }
}
