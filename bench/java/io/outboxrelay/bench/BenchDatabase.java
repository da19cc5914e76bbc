package io.outboxrelay.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.TestDatabase;

/**
 * The database the scenarios run against (--db): the machine's PostgreSQL, or the MariaDB server at --mariadb-url.
 * What differs for the bench between the two: where each run's database is created, the SQL that fills it, whose
 * CPU is the database's (every postgres process; the one mariadbd), and the scenario names (MariaDB's end in
 * _mariadb, so that both kinds of result sit in docs/benchmarks.jsonl side by side).
 */
final class BenchDatabase {

    static final String SUFFIX = "_mariadb";
    /** The history list length taken as purged: an idle server's purge keeps it at a few entries. */
    private static final long PURGED = 100;

    final Database kind;
    private final String mariadbServer;
    private long mariadbPid;

    BenchDatabase(Database kind, String mariadbServer) {
        this.kind = kind;
        this.mariadbServer = mariadbServer.endsWith("/") ? mariadbServer : mariadbServer + "/";
    }

    boolean mariadb() {
        return kind == Database.MARIADB;
    }

    /** A database of its own for one scenario run, dropped when closed. */
    TestDatabase create() {
        return mariadb() ? TestDatabase.createOn(Database.MARIADB, mariadbServer) : TestDatabase.create();
    }

    /** The scenario's name for this database: drain, drain_mariadb. */
    String scenario(String name) {
        return mariadb() ? name + SUFFIX : name;
    }

    /** The result column of the database server's CPU per event. */
    String cpuColumn() {
        return mariadb() ? "mariadb_cpu_us_per_event" : "postgres_cpu_us_per_event";
    }

    /** The writers scenario's configurations (the notify trigger is PostgreSQL's). */
    List<String> writerConfigurations() {
        return mariadb() ? List.of("bare", "plain", "relay") : List.of("bare", "plain", "relay", "notify");
    }

    /**
     * Before a writers measurement: PostgreSQL waits for autovacuum and checkpoints (Scenarios.settle); MariaDB for
     * InnoDB's purge (awaitPurge). Answers the seconds waited.
     */
    double settle(TestDatabase db) throws Exception {
        if (mariadb()) {
            return awaitPurge();
        }
        long start = System.nanoTime();
        Scenarios.settle(db);
        return secondsSince(start);
    }

    /**
     * MariaDB, before every measured scenario: waits, at most two minutes, until InnoDB's purge has cleared the
     * history list the scenarios before left (the undo of every claim and mark, hundreds of thousands of updated rows
     * after a writers configuration) and answers the seconds waited; 0 on PostgreSQL, whose autovacuum settle covers
     * the same ground where it matters. Purge runs in server threads, so a measurement started on a long list would
     * pay for its predecessor's updates in MariaDB CPU. Suspected when run 2's relay drain, always after the writers,
     * measured 0.87x twice; measured since: the waits are 0-0.26 s (a writers configuration's 60 s warm-up leaves
     * purge time enough), so the guard costs nothing and rules the cause out.
     */
    double awaitPurge() throws Exception {
        if (!mariadb()) {
            return 0;
        }
        long start = System.nanoTime();
        long deadline = start + java.time.Duration.ofMinutes(2).toNanos();
        try (Connection c = DriverManager.getConnection(mariadbServer, "root", "");
                Statement st = c.createStatement()) {
            while (historyListLength(st) > PURGED && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
        }
        return secondsSince(start);
    }

    /** Seconds since a System.nanoTime(), to the hundredth. */
    private static double secondsSince(long start) {
        return Math.round((System.nanoTime() - start) / 1e7) / 100.0;
    }

    private static long historyListLength(Statement st) throws Exception {
        try (ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")) {
            rs.next();
            return rs.getLong(2);
        }
    }

    /** CPU seconds of the database server's processes now, by pid. */
    Map<Long, Double> serverCpuSeconds() throws Exception {
        if (!mariadb()) {
            return BenchEnvironment.postgresCpuSeconds();
        }
        Map<Long, Double> cpu = new HashMap<>();
        cpu.put(mariadbPid(), BenchEnvironment.cpuSeconds(mariadbPid()));
        return cpu;
    }

    /** What the server spent since {@code start} (processes alive now, less what they had spent then). */
    double serverCpuSince(Map<Long, Double> start) throws Exception {
        double spent = 0;
        for (Map.Entry<Long, Double> process : serverCpuSeconds().entrySet()) {
            spent += process.getValue() - start.getOrDefault(process.getKey(), 0.0);
        }
        return spent;
    }

    /**
     * The mariadbd serving --mariadb-url, by the pid file it names (@@pid_file, relative to @@datadir unless
     * absolute): its CPU is read from /proc, so the server must run on this machine.
     */
    private long mariadbPid() throws Exception {
        if (mariadbPid == 0) {
            try (Connection c = DriverManager.getConnection(mariadbServer, "root", "");
                    Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT @@pid_file, @@datadir")) {
                rs.next();
                Path file = Path.of(rs.getString(2)).resolve(rs.getString(1));
                long pid = Long.parseLong(Files.readString(file).trim());
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                if (!stat.contains("(mariadbd)") && !stat.contains("(mysqld)")) {
                    throw new IllegalStateException(file + " names pid " + pid + ", which is not a mariadbd on this "
                            + "machine: --mariadb-url must be a local server");
                }
                mariadbPid = pid;
            }
        }
        return mariadbPid;
    }

    /**
     * Inserts {@code events} events of about 300 bytes of JSON, round-robin over {@code keys} keys and the three
     * given aggregate types (each key stays with one type), in one statement; not analysed.
     */
    static void insertEvents(TestDatabase db, String[] types, int events, int keys) {
        if (db.database() == Database.MARIADB) {
            // seq_1_to_N: MariaDB's Sequence engine, its generate_series
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "SELECT ELT(1 + (n.seq % " + keys + ") % 3, ?, ?, ?), CONCAT('key-', n.seq % " + keys + "), "
                    + "'Updated', JSON_OBJECT("
                    + "'id', n.seq, 'customer', CONCAT('customer-', n.seq % 977), 'status', 'CONFIRMED', "
                    + "'currency', 'EUR', 'total', ROUND((n.seq % 10000) / 7.0, 2), 'lines', JSON_ARRAY("
                    + "JSON_OBJECT('sku', CONCAT('SKU-', n.seq % 311), 'qty', 1 + n.seq % 5, 'price', 19.99), "
                    + "JSON_OBJECT('sku', CONCAT('SKU-', n.seq % 173), 'qty', 2, 'price', 5.5)), "
                    + "'note', REPEAT('x', 90)) FROM seq_1_to_" + events + " n",
                    types[0], types[1], types[2]);
            return;
        }
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                + "SELECT (?::text[])[1 + (n % " + keys + ") % 3], 'key-' || (n % " + keys + "), "
                + "'Updated', jsonb_build_object("
                + "'id', n, 'customer', 'customer-' || (n % 977), 'status', 'CONFIRMED', 'currency', 'EUR', "
                + "'total', round((n % 10000) / 7.0, 2), 'lines', jsonb_build_array("
                + "jsonb_build_object('sku', 'SKU-' || (n % 311), 'qty', 1 + n % 5, 'price', 19.99), "
                + "jsonb_build_object('sku', 'SKU-' || (n % 173), 'qty', 2, 'price', 5.5)), "
                + "'note', repeat('x', 90)) FROM generate_series(1, ?) AS n",
                (Object) types, events);
    }

    /** Fresh statistics for the planner after a bulk insert. */
    static void analyze(TestDatabase db) {
        if (db.database() == Database.MARIADB) {
            db.query("ANALYZE TABLE outbox");
        } else {
            db.update("ANALYZE outbox");
        }
    }
}
