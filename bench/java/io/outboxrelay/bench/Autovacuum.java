package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Runs the benchmarks with PostgreSQL's autovacuum on, as production runs (this machine's server has it off): a
 * queue table without vacuum piles up dead index entries that every claim steps over. Puts the server's own setting
 * back when closed.
 */
final class Autovacuum implements AutoCloseable {

    private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/postgres";

    /** The ALTER SYSTEM statement that puts the server's setting back. */
    private final String restore;

    private Autovacuum(String restore) {
        this.restore = restore;
    }

    static Autovacuum on() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER, "postgres", ""); Statement st = c.createStatement()) {
            String restore;
            try (ResultSet rs = st.executeQuery(
                    "SELECT setting, coalesce(sourcefile, '') FROM pg_settings WHERE name = 'autovacuum'")) {
                rs.next();
                // set by an earlier ALTER SYSTEM: set it back; else drop the override
                restore = rs.getString(2).endsWith("postgresql.auto.conf")
                        ? "ALTER SYSTEM SET autovacuum = " + ("on".equals(rs.getString(1)) ? "on" : "off")
                        : "ALTER SYSTEM RESET autovacuum";
            }
            st.execute("ALTER SYSTEM SET autovacuum = on");
            st.execute("SELECT pg_reload_conf()");
            return new Autovacuum(restore);
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(SERVER, "postgres", ""); Statement st = c.createStatement()) {
            st.execute(restore);
            st.execute("SELECT pg_reload_conf()");
        }
    }
}
