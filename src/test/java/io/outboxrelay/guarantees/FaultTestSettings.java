package io.outboxrelay.guarantees;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.TestDatabase;

/**
 * Environment for relay processes in the fault tests: a short lease (and a heartbeat to keep it) so recovery is quick
 * to observe.
 */
final class FaultTestSettings {

    static final String LEASE = "PT3S";
    static final String HEARTBEAT = "PT1S";
    static final int BATCH_SIZE = 200;

    private FaultTestSettings() {
    }

    static Map<String, String> environment(TestDatabase db, String brokers, String instanceId) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_DB_USER", db.user());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", brokers);
        env.put("OUTBOX_INSTANCE_ID", instanceId);
        env.put("OUTBOX_LEASE", LEASE);
        env.put("OUTBOX_INSTANCE_HEARTBEAT", HEARTBEAT);
        env.put("OUTBOX_INSTANCE_STALE_AFTER", LEASE);
        env.put("OUTBOX_BATCH_SIZE", Integer.toString(BATCH_SIZE));
        env.put("OUTBOX_POLL_DELAY_MS", "50");
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        return env;
    }

    /** The management port must be a system property: Camel ignores environment variables ending in _PORT. */
    static String managementPort() {
        return managementPort(freePort());
    }

    static String managementPort(int port) {
        return "-Dcamel.management.port=" + port;
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Inserts {@code events} rows round-robin over {@code keys} keys, a transaction per round, so that no transaction
     * holds two events of one key. A claim that runs while one transaction commits may see part of that transaction's
     * rows on MariaDB (InnoDB's locking read skips the rows still locked, then reads the ones committed meanwhile):
     * with two events of a key in that transaction it could take the later one first. That is a MariaDB claim issue
     * of its own (reported), not what the fault tests are about.
     */
    static void insertBulk(TestDatabase db, String type, int events, int keys) {
        for (int first = 1; first <= events; first += keys) {
            insertNumbered(db, type, first, Math.min(first + keys - 1, events), keys);
        }
    }

    /** Events numbered first..last in one transaction; event n is of key 'key-' || (n % keys). */
    static void insertNumbered(TestDatabase db, String type, int first, int last, int keys) {
        if (db.database() == Database.MARIADB) {
            // MariaDB's Sequence engine: the table seq_<first>_to_<last> holds the numbers
            db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                    + "SELECT ?, concat('key-', seq % ?), 'E', json_object('n', seq) FROM seq_" + first + "_to_"
                    + last + " ORDER BY seq", type, keys);
            return;
        }
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                + "SELECT ?, 'key-' || (n % ?), 'E', jsonb_build_object('n', n) FROM generate_series(?, ?) AS n",
                type, keys, first, last);
    }

    static long published(TestDatabase db) {
        return db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'");
    }

    /** HTTP status of /observe/health/ready (503 while DOWN), or -1 while nothing answers. */
    static int readiness(int port) {
        try {
            return java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                            "http://127.0.0.1:" + port + "/observe/health/ready")).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static boolean soak() {
        return Boolean.getBoolean("soak");
    }
}
