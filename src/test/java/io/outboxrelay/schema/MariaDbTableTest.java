package io.outboxrelay.schema;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The traps of MariaDB (shared/FACTS.md, "MariaDB"), each tried end to end on the table the relay's migration makes
 * (contract §2, "The same table on MariaDB"), with the writer's own statement and a real broker: keys that differ only
 * in case or trailing spaces stay different keys; the payload is published byte for byte; ids the writer gives
 * (version 4) are kept; created_at keeps its microseconds; and the relay's sessions read committed, so a claim's
 * locking read does not hold a writer's INSERT back. And the backlog gauges count the table's rows.
 */
@Tag("services")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbTableTest {

    private TestDatabase db;
    private RelayInstance relay;

    @BeforeAll
    void start() {
        db = TestDatabase.create(Database.MARIADB);
        Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.${header.ce_aggregatetype}",
                SharedKafka.broker().bootstrapServers());
        settings.put("outbox.metrics.refresh-ms", "200");
        relay = RelayInstance.start(settings);
    }

    @AfterAll
    void stop() {
        relay.close();
        db.close();
    }

    @Test
    void keysThatDifferInCaseOrTrailingSpacesStayDifferentKeys() {
        String type = type("keys");
        for (String key : List.of("K-1", "k-1", "k-1 ", "K-1", "k-1", "k-1 ")) {
            insert(type, key, "{\"key\": \"" + key + "\"}");
        }

        List<ConsumerRecord<String, byte[]>> records = published(type, 6);
        Map<String, List<String>> bodiesByKey = records.stream().collect(Collectors.groupingBy(ConsumerRecord::key,
                TreeMap::new, Collectors.mapping(r -> new String(r.value(), StandardCharsets.UTF_8),
                        Collectors.toList())));
        assertEquals(List.of("K-1", "k-1", "k-1 "), List.copyOf(bodiesByKey.keySet()));
        bodiesByKey.forEach((key, bodies) -> assertEquals(List.of("{\"key\": \"" + key + "\"}",
                "{\"key\": \"" + key + "\"}"), bodies, key));
        assertEquals(3, db.count("SELECT count(DISTINCT aggregate_id) FROM outbox WHERE aggregate_type = ?", type));
    }

    @Test
    void thePayloadIsPublishedByteForByte() {
        String type = type("bytes");
        String payload = "{ \"z\" :1,\t\"a\":[ 1.50, 2e3 ],\n  \"caf\u00e9\": \"\\u00e9\\n\", \"a\": null }";
        insert(type, "k", payload);

        assertEquals(payload, new String(published(type, 1).get(0).value(), StandardCharsets.UTF_8));
    }

    @Test
    void idsTheWriterGivesAreKeptAndTheTablesOwnArePublishedToo() {
        String type = type("ids");
        UUID given = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                + "VALUES (?, ?, 'k', 'E', ?)", given, type, "{}");
        insert(type, "k", "{}");

        List<String> ids = published(type, 2).stream().map(r -> SharedKafka.headers(r).get("ce_id")).toList();
        assertEquals(given.toString(), ids.get(0));
        assertEquals(4, UUID.fromString(ids.get(0)).version());
        String defaulted = ids.get(1);
        assertEquals(1, db.count("SELECT count(*) FROM outbox WHERE id = ? AND aggregate_type = ?", defaulted, type),
                "the table's own id (uuid(), version 1) is the one published");
    }

    @Test
    void createdAtKeepsItsMicroseconds() throws SQLException {
        String type = type("time");
        try (Connection writer = db.connect(); Statement st = writer.createStatement()) {
            st.execute("SET time_zone = '+02:00'");
            try (PreparedStatement insert = writer.prepareStatement("INSERT INTO outbox (aggregate_type, "
                    + "aggregate_id, event_type, payload, created_at) VALUES (?, 'k', 'E', '{}', ?)")) {
                insert.setString(1, type);
                insert.setString(2, "2026-01-02 05:04:05.123456");
                insert.executeUpdate();
            }
        }

        assertEquals("2026-01-02T03:04:05.123456Z", SharedKafka.headers(published(type, 1).get(0)).get("ce_time"),
                "the writer's instant (its session at +02:00), to the microsecond");
    }

    @Test
    void theRelaysSessionsReadCommittedSoAClaimDoesNotHoldAWriterBack() throws SQLException {
        String type = type("rc");
        // pending events the relay leaves alone (due tomorrow), which a claim of their partition reads to the end
        for (int i = 0; i < 5; i++) {
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, next_attempt_at) "
                    + "VALUES (?, 'k', 'E', '{}', now(6) + INTERVAL 1 DAY)", type);
        }
        int partition = ((Number) db.query("SELECT partition_number FROM outbox WHERE aggregate_type = ? LIMIT 1",
                type).get(0).get("partition_number")).intValue();
        DataSource relays = relay.context().getRegistry().lookupByNameAndType("outboxDataSource", DataSource.class);

        try (Connection claim = relays.getConnection()) {
            assertDoesNotThrow(() -> insertWhileAClaimHoldsItsLocks(claim, type, partition),
                    "the relay's session: the writer's INSERT goes through");
        }
        try (Connection claim = db.connect()) {
            // the same with InnoDB's default, REPEATABLE READ: the claim's next-key lock holds the writer back
            SQLException blocked = assertThrows(SQLException.class,
                    () -> insertWhileAClaimHoldsItsLocks(claim, type, partition));
            assertTrue(blocked.getMessage().contains("Lock wait timeout"), blocked.getMessage());
        }
    }

    @Test
    void theBacklogGaugesCountTheTablesPendingRows() {
        String type = type("gauges");
        for (int i = 0; i < 2; i++) {
            // due tomorrow: they stay PENDING
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, next_attempt_at) "
                    + "VALUES (?, 'k', 'E', '{}', now(6) + INTERVAL 1 DAY)", type);
        }
        long pending = db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'");
        assertTrue(pending >= 2);

        await().atMost(Duration.ofSeconds(10)).until(() -> gauge("outbox.backlog") == pending);
        assertEquals(0, gauge("outbox.failed"));
        assertEquals(0, gauge("outbox.keys.held.back"));
        assertTrue(gauge("outbox.oldest.pending.age") < 24 * 3600, "seconds since the oldest PENDING row was written");
    }

    private double gauge(String name) {
        MeterRegistry registry = relay.context().getRegistry()
                .lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME, MeterRegistry.class);
        return registry.find(name).gauge().value();
    }

    /** A claim's locking read of the partition's PENDING events, its transaction open while a writer inserts. */
    private void insertWhileAClaimHoldsItsLocks(Connection claim, String type, int partition) throws SQLException {
        claim.setAutoCommit(false);
        try (PreparedStatement read = claim.prepareStatement("SELECT id FROM outbox WHERE partition_number = ? "
                + "AND status = 'PENDING' ORDER BY seq LIMIT 100 FOR UPDATE SKIP LOCKED")) {
            read.setInt(1, partition);
            read.executeQuery().close();
            try (Connection writer = db.connect(); Statement st = writer.createStatement()) {
                st.execute("SET SESSION innodb_lock_wait_timeout = 2");
                st.executeUpdate("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, "
                        + "next_attempt_at) VALUES ('" + type + "', 'k', 'E', '{}', now(6) + INTERVAL 1 DAY)");
            }
        } finally {
            claim.rollback();
            claim.setAutoCommit(true);
        }
    }

    private static String type(String name) {
        return name + UUID.randomUUID().toString().substring(0, 8);
    }

    /** The writer's statement on MariaDB (contract §2). */
    private void insert(String type, String key, String payload) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) VALUES (?, ?, ?, ?)",
                type, key, "E", payload);
    }

    private List<ConsumerRecord<String, byte[]>> published(String type, int events) {
        await().atMost(Duration.ofSeconds(30)).until(() -> db.count("SELECT count(*) FROM outbox "
                + "WHERE aggregate_type = ? AND status = 'PUBLISHED'", type) == events);
        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read("outbox.event." + type, events,
                Duration.ofSeconds(30));
        assertEquals(events, records.size());
        return records;
    }
}
