package io.outboxrelay.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import javax.sql.DataSource;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.support.TestDatabase;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An outbox table on a test database, migrated as the relay migrates it, rows written in any state, and the operator
 * commands run in this JVM against it with their output captured.
 */
final class CliFixture {

    private final TestDatabase db;
    private final String table;
    private final Map<String, String> settings = new HashMap<>();

    CliFixture(TestDatabase db, String table) {
        this.db = db;
        this.table = table;
        settings.put("outbox.db.url", db.url());
        settings.put("outbox.db.user", db.user());
        settings.put("outbox.table", table);
    }

    /** The relay's migrations (SchemaMigration, Flyway), applied to the table. */
    CliFixture migrate() {
        DataSource dataSource;
        if (db.database() == Database.MARIADB) {
            try {
                MariaDbDataSource mariadb = new MariaDbDataSource(db.url());
                mariadb.setUser(db.user());
                dataSource = mariadb;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        } else {
            PGSimpleDataSource postgres = new PGSimpleDataSource();
            postgres.setURL(db.url());
            postgres.setUser(db.user());
            dataSource = postgres;
        }
        assertTrue(new SchemaMigration(dataSource, db.database(), db.url(), TableName.parse("outbox.table", table), 32,
                true).migrateSchema(), "migrations applied");
        return this;
    }

    /**
     * A table name qualified with a schema other than the default: schema app on PostgreSQL; on MariaDB, where a schema
     * is a database, the test database itself (dropped with it).
     */
    static String qualified(TestDatabase db, String table) {
        return (db.database() == Database.MARIADB ? db.name() : "app") + "." + table;
    }

    TestDatabase db() {
        return db;
    }

    String table() {
        return table;
    }

    /** A setting for the next commands, as an environment variable or -D would give it. */
    CliFixture set(String key, String value) {
        settings.put(key, value);
        return this;
    }

    /** Runs {@code java -jar outbox-relay.jar ARGS} in this JVM: the relay's settings with this fixture's on top. */
    Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        var relaySettings = OperatorCommands.relaySettings();
        Map<String, String> given = Map.copyOf(settings);
        int exit = OperatorCommands.run(args,
                key -> given.containsKey(key) ? Optional.of(given.get(key)) : relaySettings.apply(key),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Inserts an event as a writer does, then puts it in the given state. */
    UUID insert(String key, String status) {
        UUID id = UUID.randomUUID();
        int slash = key.indexOf('/');
        db.update("INSERT INTO " + table + " (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, ?, ?, 'OrderCreated', " + db.json() + ")", id, key.substring(0, slash),
                key.substring(slash + 1), "{\"n\": 1}");
        switch (status) {
            case "PENDING" -> { }
            case "FAILED" -> {
                db.update("UPDATE " + table + " SET status = 'FAILED', attempts = 3, last_error = ?, "
                        + "next_attempt_at = " + db.nowPlus(40) + " WHERE id = ?",
                        "org.apache.kafka.common.errors.RecordTooLargeException: too large " + id, id);
                holdsItsKey(id);
            }
            case "PUBLISHED" -> db.update("UPDATE " + table + " SET status = 'PUBLISHED', published_at = now() "
                    + "WHERE id = ?", id);
            default -> throw new IllegalArgumentException(status);
        }
        return id;
    }

    /** Records that this event's failed attempt holds its key back, as the relay's failure bookkeeping does. */
    void holdsItsKey(UUID id) {
        db.update("INSERT INTO " + table + "_held_keys (held_by, held_by_seq, partition_number, aggregate_type, "
                + "aggregate_id) SELECT id, seq, " + (db.database() == Database.MARIADB ? "partition_number"
                        : table + "_partition(aggregate_type, aggregate_id)")
                + ", aggregate_type, aggregate_id FROM " + table
                + " WHERE id = ?", id);
    }

    /** Every column of every row, for before/after comparisons. */
    List<Map<String, Object>> snapshot() {
        return db.query("SELECT * FROM " + table + " ORDER BY seq");
    }

    Map<String, Object> row(UUID id) {
        return db.query("SELECT * FROM " + table + " WHERE id = ?", id).get(0);
    }

    String status(UUID id) {
        return (String) row(id).get("status");
    }

    record Result(int exit, String out, String err) {

        JsonNode json() {
            try {
                return new ObjectMapper().readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + out, e);
            }
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
