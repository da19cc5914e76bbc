package io.outboxrelay.claim;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.JsonArrayParameters;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.mariadb.jdbc.MariaDbDataSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MariaDB's claim procedure (migration V4) called with a Grant's parameters as sql/mariadb/claim.sql binds them: each
 * partition's read leaves out exactly its own events in flight, also with outbox.batch-size's most (10,000) in flight
 * over every partition.
 */
@Tag("services")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbClaimTest {

    private static final int PARTITIONS = 32;

    private TestDatabase db;

    @BeforeAll
    void migrate() throws SQLException {
        db = TestDatabase.create(Database.MARIADB);
        MariaDbDataSource dataSource = new MariaDbDataSource(db.url());
        dataSource.setUser(db.user());
        TableName table = TableName.parse("outbox.table", "outbox");
        assertTrue(new SchemaMigration(dataSource, Database.MARIADB, db.url(), table, PARTITIONS, true)
                .migrateSchema(), "migrated");
        db.update("UPDATE outbox_partitions SET owner = 'me', lease_until = now(6) + INTERVAL 1 HOUR");
    }

    @AfterAll
    void drop() {
        db.close();
    }

    @Test
    void eachPartitionsReadLeavesOutItsOwnEventsInFlight() throws SQLException {
        List<Map<String, Object>> events = insert("few", 120, 40);
        List<Map<String, Object>> inFlight = events.subList(0, 70);

        Set<String> claimed = claim(inFlight, 1000);

        Set<String> expected = ids(events.subList(70, events.size()));
        assertEquals(expected, claimed, "every PENDING event of the partitions but those in flight");
    }

    @Test
    void tenThousandEventsInFlightOverEveryPartition() throws SQLException {
        List<Map<String, Object>> events = insert("many", 10_100, 500);
        List<Map<String, Object>> inFlight = events.subList(0, 10_000);
        assertEquals(PARTITIONS, inFlight.stream().map(e -> e.get("partition_number")).distinct().count(),
                "in flight in every partition");

        Set<String> claimed = claim(inFlight, 20_000);

        assertEquals(ids(events.subList(10_000, events.size())), claimed);
    }

    /** Events of one aggregate type over keys k0..k(keys-1), in seq order, with their partitions. */
    private List<Map<String, Object>> insert(String type, int count, int keys) throws SQLException {
        db.update("UPDATE outbox SET status = 'PUBLISHED' WHERE status = 'PENDING'");
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < count; i++) {
                values.append(i == 0 ? "" : ",").append("('").append(type).append("', 'k").append(i % keys)
                        .append("', 'E', '{}')");
            }
            st.executeUpdate("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) VALUES " + values);
        }
        List<Map<String, Object>> events = db.query("SELECT CAST(id AS char) AS id, partition_number FROM outbox "
                + "WHERE aggregate_type = ? ORDER BY seq", type);
        return events;
    }

    private Set<String> claim(List<Map<String, Object>> inFlight, int perPartition) throws SQLException {
        Grant grant = new Grant(1, IntStream.range(0, PARTITIONS).boxed().toList(), perPartition,
                inFlight.stream().map(e -> (String) e.get("id")).toList(),
                inFlight.stream().map(e -> ((Number) e.get("partition_number")).intValue()).toList());
        Set<String> claimed = new HashSet<>();
        try (Connection c = db.connect();
             PreparedStatement call = c.prepareStatement("CALL outbox_claim(?, ?, ?, 'me', FALSE)")) {
            // as sql/mariadb/claim.sql binds them
            call.setObject(1, JsonArrayParameters.json(grant.parameters().get("partitions")));
            call.setInt(2, perPartition);
            call.setObject(3, JsonArrayParameters.json(grant.parameters().get("inFlightByPartition")));
            try (ResultSet rs = call.executeQuery()) {
                while (rs.next()) {
                    assertTrue(claimed.add(rs.getString("id")), "each event once");
                }
            }
        }
        return claimed;
    }

    private static Set<String> ids(List<Map<String, Object>> events) {
        List<String> ids = new ArrayList<>();
        events.forEach(e -> ids.add((String) e.get("id")));
        return new HashSet<>(ids);
    }
}
