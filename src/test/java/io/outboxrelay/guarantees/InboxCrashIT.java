package io.outboxrelay.guarantees;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.TestDatabases;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inbox under kill -9 and under SIGTERM: the relay jar runs a consumer as users run one (a templatedRoute of
 * postgresql-inbox in outbox.routes-dir, its handler a route writing the business row) beside the relay publishing the
 * orders. The handler is slow after its write, so the process is killed, or stopped, while a message's transaction is
 * open (its business row and inbox row written, not committed), several times, restarting each time; afterwards some
 * published events are re-sent as a relay crash would. Every order is applied exactly once: a killed transaction's
 * writes are rolled back and the message redelivered; a stopped one commits before the process exits 0 (within 10 s),
 * and nothing polled and not applied is acknowledged; what Kafka redelivers after a commit is dropped by the inbox.
 * kill -9 on MariaDB too (its inbox keyed by a SHA-256 of consumer and id); SIGTERM's transaction handling is Camel's
 * and Spring's, the same on both, so it runs on PostgreSQL only.
 */
class InboxCrashIT {

    private static final int ORDERS = 200;
    private static final int KILLS = 3;
    private static final int RESENT = 20;

    private static final String ROUTES = """
            - templatedRoute:
                routeTemplateRef: postgresql-inbox
                routeId: crash-inbox
                parameters:
                  - name: name
                    value: crash-consumer
                  - name: from
                    value: "kafka:outbox.event.%s?groupId=inbox-crash&autoOffsetReset=earliest&breakOnFirstError=true\
            &headerDeserializer=#kafkaStringHeaders&sessionTimeoutMs=6000&heartbeatIntervalMs=1000\
            &maxPollRecords=20&pollTimeoutMs=1000"
                  - name: handler
                    value: direct:apply-order
                  - name: duplicates
                    value: direct:note-duplicate
            - route:
                id: apply-order
                from:
                  uri: direct:apply-order
                  steps:
                    - to: "sql:INSERT INTO applied_orders (order_id, ce_id) VALUES \
            (:#${header.ce_subject}, :#${header.ce_id})"
                    # slow between the write and the commit: where the test kills or stops the process (a stop
                    # finishes the records of the consumer's current poll: maxPollRecords x 100 ms)
                    - delay:
                        constant: "100"
            - route:
                id: note-duplicate
                from:
                  uri: direct:note-duplicate
                  steps:
                    - to: "sql:INSERT INTO dropped_duplicates (order_id, ce_id) VALUES \
            (:#${header.ce_subject}, :#${header.ce_id})"
            """;

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("stops")
    void stoppingBetweenTheHandlersWriteAndTheCommitAppliesEveryOrderExactlyOnce(Database database, String stop)
            throws Exception {
        boolean kill = stop.equals("kill -9");
        String type = "inboxcrash" + UUID.randomUUID().toString().substring(0, 8);
        String brokers = SharedKafka.broker().bootstrapServers();
        Path routes = Files.createDirectories(Path.of("target", "inbox-crash-routes", type));
        Files.writeString(routes.resolve("inbox-crash.camel.yaml"), ROUTES.formatted(type));
        try (TestDatabase db = TestDatabase.create(database)) {
            db.update("CREATE TABLE applied_orders (order_id varchar(255) NOT NULL, ce_id varchar(255) NOT NULL, "
                    + (database == Database.MARIADB ? "applied_at timestamp(6) NOT NULL DEFAULT current_timestamp(6))"
                            : "applied_at timestamptz NOT NULL DEFAULT now())"));
            db.update("CREATE TABLE dropped_duplicates (order_id varchar(255) NOT NULL, ce_id varchar(255) NOT NULL)");
            RelayProcess consumer = start(db, brokers, routes, 0);
            // one key per order: order n is aggregate 'key-n', its ce_subject
            FaultTestSettings.insertNumbered(db, type, 1, ORDERS, ORDERS + 1);
            int killedInTransaction = 0;
            try {
                for (int round = 1; round <= KILLS; round++) {
                    long threshold = (long) ORDERS * round / (KILLS + 1);
                    await().atMost(Duration.ofSeconds(120)).until(() -> applied(db) >= threshold);
                    // a message's transaction is open: its business row written, the handler in its delay
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                            .until(() -> handlerWriteUncommitted(db));
                    if (kill) {
                        consumer.kill();
                    } else {
                        long signalled = System.nanoTime();
                        consumer.terminate();
                        assertEquals(0, consumer.waitForExit(Duration.ofSeconds(30)), consumer.output());
                        long stoppedMillis = (System.nanoTime() - signalled) / 1_000_000;
                        assertTrue(stoppedMillis <= 10_000, "stopped in " + stoppedMillis + " ms");
                        assertFalse(handlerWriteUncommitted(db), "the open transaction was committed or rolled back");
                    }
                    killedInTransaction++;
                    long appliedAtKill = applied(db);
                    consumer = start(db, brokers, routes, round);
                    await().atMost(Duration.ofSeconds(90)).until(() -> applied(db) > appliedAtKill);
                    System.out.printf("InboxCrashIT: %s %d at %d orders applied%n", stop, round, appliedAtKill);
                }
                await().atMost(Duration.ofSeconds(180)).until(() -> applied(db) >= ORDERS);

                // a relay that crashed before its marks sends published events again: the inbox drops every copy
                List<String> resent = db.query("SELECT " + db.text("id") + " AS id FROM outbox ORDER BY seq LIMIT "
                        + RESENT).stream().map(row -> (String) row.get("id")).toList();
                long lastResent = db.count("SELECT max(seq) FROM (SELECT seq FROM outbox ORDER BY seq LIMIT "
                        + RESENT + ") oldest");
                db.update("UPDATE outbox SET status = 'PENDING', published_at = NULL WHERE seq <= ?", lastResent);
                // ids the database made (uuids): safe to spell in the statement
                String ids = "'" + String.join("', '", resent) + "'";
                await().atMost(Duration.ofSeconds(60)).until(() -> db.count(
                        "SELECT count(DISTINCT ce_id) FROM dropped_duplicates WHERE ce_id IN (" + ids + ")") == RESENT);
            } finally {
                consumer.close();
            }

            long rows = db.count("SELECT count(*) FROM applied_orders");
            long distinct = db.count("SELECT count(DISTINCT order_id) FROM applied_orders");
            long dropped = db.count("SELECT count(*) FROM dropped_duplicates");
            long inbox = db.count("SELECT count(*) FROM inbox WHERE consumer = 'crash-consumer'");
            System.out.printf("InboxCrashIT: orders written %d, applied %d (distinct %d), inbox rows %d, "
                    + "duplicates dropped %d (of which %d re-sent on purpose), %s %d (all inside a handler's "
                    + "open transaction)%n", ORDERS, rows, distinct, inbox, dropped, RESENT, stop, KILLS,
                    killedInTransaction);
            assertEquals(ORDERS, distinct, "no order missing");
            assertEquals(ORDERS, rows, "no order applied twice");
            assertEquals(List.of(),
                    db.query("SELECT order_id FROM applied_orders GROUP BY order_id HAVING count(*) > 1"));
            assertEquals(ORDERS, inbox, "one inbox row per applied order");
            assertEquals(0, db.count("SELECT count(*) FROM applied_orders a JOIN inbox i ON i.message_id = a.ce_id "
                    + "WHERE i.consumer <> 'crash-consumer'"));
            assertTrue(dropped >= RESENT, "the re-sent events were dropped: " + dropped);
            assertEquals(KILLS, killedInTransaction);
        }
    }

    /** PostgreSQL in the suite; MariaDB with -Dtest.database=MARIADB (kill -9 passed there). */
    static Stream<Arguments> stops() {
        return TestDatabases.postgresqlWith("kill -9", "SIGTERM");
    }

    private static long applied(TestDatabase db) {
        return db.count("SELECT count(*) FROM applied_orders");
    }

    /**
     * A session of the consumer is idle inside a transaction whose last statement was the handler's INSERT (on
     * MariaDB: idle in a transaction that wrote two rows, the inbox's and the handler's; the relay's own transactions
     * are statements or procedures, never idle).
     */
    private static boolean handlerWriteUncommitted(TestDatabase db) {
        if (db.database() == Database.MARIADB) {
            return db.count("SELECT count(*) FROM information_schema.INNODB_TRX t "
                    + "JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id "
                    + "WHERE p.DB = DATABASE() AND p.COMMAND = 'Sleep' "
                    + "AND t.trx_rows_modified >= 2") > 0;
        }
        return db.count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                + "AND state = 'idle in transaction' AND query LIKE 'INSERT INTO applied_orders%'") > 0;
    }

    private static RelayProcess start(TestDatabase db, String brokers, Path routes, int generation) {
        Map<String, String> env = FaultTestSettings.environment(db, brokers, "inbox-crash-" + generation);
        env.put("OUTBOX_DB_USER", db.user());
        env.put("OUTBOX_ROUTES_DIR", routes.toAbsolutePath().toString());
        RelayProcess relay = RelayProcess.startJar(env, FaultTestSettings.managementPort());
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
        return relay;
    }
}
