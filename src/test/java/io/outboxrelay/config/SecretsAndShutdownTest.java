package io.outboxrelay.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A running relay process: the password never reaches its output, and SIGTERM ends it gracefully with exit code 0. */
@Tag("services")
class SecretsAndShutdownTest {

    private static final String PASSWORD = "pw-9f3c1e7a-never-log-me";

    @Test
    void passwordIsNeverLoggedAndSigtermExitsZero() throws Exception {
        Path routes = Files.createTempDirectory("routes");
        try (TestDatabase db = TestDatabase.create();
                RelayProcess relay = RelayProcess.start(Map.of(
                        "OUTBOX_DB_URL", db.url(),
                        "OUTBOX_DB_PASSWORD", PASSWORD,
                        "OUTBOX_ROUTES_DIR", routes.toString(),
                        "CAMEL_COMPONENT_KAFKA_BROKERS", "127.0.0.1:1"),
                        "-Dcamel.management.port=0")) {
            relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
            relay.terminate();
            assertEquals(0, relay.waitForExit(Duration.ofSeconds(40)), relay.output());
            String output = relay.output();
            assertTrue(output.contains("outbox.db.password"), "the key is listed (masked) in the startup summary");
            assertFalse(output.contains(PASSWORD), output);
        }
    }
}
