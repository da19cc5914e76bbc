package io.outboxrelay.guarantees;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.support.TestDatabase;

/** Environment for relay processes in the fault tests: a short lease so recovery is quick to observe. */
final class FaultTestSettings {

    static final String LEASE = "PT3S";
    static final int BATCH_SIZE = 200;

    private FaultTestSettings() {
    }

    static Map<String, String> environment(TestDatabase db, String brokers, String instanceId) {
        Map<String, String> env = new HashMap<>();
        env.put("OUTBOX_DB_URL", db.url());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", brokers);
        env.put("OUTBOX_INSTANCE_ID", instanceId);
        env.put("OUTBOX_LEASE", LEASE);
        env.put("OUTBOX_BATCH_SIZE", Integer.toString(BATCH_SIZE));
        env.put("OUTBOX_POLL_DELAY_MS", "50");
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        return env;
    }

    /** The management port must be a system property: Camel ignores environment variables ending in _PORT. */
    static String managementPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "-Dcamel.management.port=" + socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean soak() {
        return Boolean.getBoolean("soak");
    }
}
