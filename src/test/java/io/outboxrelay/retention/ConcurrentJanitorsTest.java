package io.outboxrelay.retention;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every relay instance runs the retention janitor, one pass at a time: a batch runs only under the table's janitor
 * lock (tried, never waited for), so while one pass holds it (its batch uncommitted) another instance's batch comes
 * back empty at once, under a lock timeout that would fail it if it waited; no row is deleted or archived twice. Then
 * three passes started at once clear every expired row exactly once, one of them going on alone. Three passes against
 * one over 1,000,000 rows, with their time and lock waits: bench/ (the janitors scenario).
 */
@Tag("services")
class ConcurrentJanitorsTest {

    private static final int ROWS = 12_000;
    private static final int BATCH = 1_000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"delete-expired", "archive-expired"})
    void concurrentPassesNeverWaitOnEachOtherNorTakeTheSameRow(String statement) throws Exception {
        try (TestDatabase db = TestDatabase.create()) {
            String batch;
            // the relay creates the schema and resolves the statement; it stops before the rows exist
            try (RelayInstance relay = RelayInstance.start(RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1"))) {
                batch = relay.context().getRegistry().lookupByNameAndType("sql." + statement, String.class)
                        .replace(":#${bean:relaySettings.retentionInterval}", "'P7D'")
                        .replace(":#${bean:relaySettings.retentionBatchSize}", Integer.toString(BATCH));
            }
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                    + "SELECT 't', 'k' || (n % 100), 'E', jsonb_build_object('n', n), 'PUBLISHED', "
                    + "now() - interval '30 days' + n * interval '1 second' FROM generate_series(1, ?) AS n", ROWS);
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "SELECT 't', 'k', 'E', '{}' FROM generate_series(1, 100)");

            int moved = 0;
            try (Connection holding = connect(db); Connection other = connect(db)) {
                holding.setAutoCommit(false);
                try (Statement first = holding.createStatement(); Statement second = other.createStatement()) {
                    moved += first.executeUpdate(batch);
                    // the first pass's batch is uncommitted: the second comes back empty at once (a wait would fail
                    // it after 300 ms), and its pass ends
                    second.execute("SET lock_timeout = '300ms'");
                    assertEquals(0, second.executeUpdate(batch), "one pass at a time");
                }
                holding.commit();
            }
            assertEquals(BATCH, moved, "the holding pass's full batch");

            ExecutorService janitors = Executors.newFixedThreadPool(3);
            try {
                List<Future<Integer>> passes = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    passes.add(janitors.submit(pass(db, batch)));
                }
                for (Future<Integer> pass : passes) {
                    moved += pass.get();
                }
            } finally {
                janitors.shutdownNow();
            }

            assertEquals(ROWS, moved, "every expired row once, over all passes");
            assertEquals(0, db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'"));
            assertEquals(100, db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'"));
            if (statement.equals("archive-expired")) {
                assertEquals(ROWS, db.count("SELECT count(*) FROM outbox_archive"));
                assertEquals(ROWS, db.count("SELECT count(DISTINCT id) FROM outbox_archive"));
                assertEquals(ROWS, db.count("SELECT count(DISTINCT payload) FROM outbox_archive"));
            }
        }
    }

    /**
     * A janitor's pass as the retention route runs it: batches until one comes back short, each under a lock timeout
     * (no batch may wait on another pass).
     */
    private static Callable<Integer> pass(TestDatabase db, String batch) {
        return () -> {
            int moved = 0;
            try (Connection connection = connect(db); Statement statement = connection.createStatement()) {
                statement.execute("SET lock_timeout = '300ms'");
                int count;
                do {
                    count = statement.executeUpdate(batch);
                    moved += count;
                } while (count == BATCH);
            }
            return moved;
        };
    }

    private static Connection connect(TestDatabase db) throws Exception {
        return DriverManager.getConnection(db.url(), "postgres", "");
    }
}
