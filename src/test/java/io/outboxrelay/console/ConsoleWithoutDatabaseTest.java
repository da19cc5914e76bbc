package io.outboxrelay.console;

import java.util.Map;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static io.outboxrelay.console.ConsoleClient.VIEWER;
import static io.outboxrelay.console.ConsoleClient.VIEWER_PASSWORD;
import static io.outboxrelay.console.ConsoleClient.basic;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A wrong or missing credential is refused without the database: a relay whose database is unreachable still answers
 * it 401 (while a valid user's query fails, 500). (Without console users /outbox/** is 404:
 * metrics.OperatingEndpointsTest.)
 */
@Tag("services")
class ConsoleWithoutDatabaseTest {

    @Test
    void aWrongCredentialCostsNoDatabaseQuery() {
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = ConsoleClient.relaySettings(db);
            // nothing listens there
            settings.put("outbox.db.url", "jdbc:postgresql://127.0.0.1:9/unreachable");
            // its claims, failing, would hold a graceful stop for 30 s
            settings.put("camel.main.shutdown-timeout", "1");
            try (RelayInstance relay = RelayInstance.start(settings)) {
                ConsoleClient console = new ConsoleClient(relay.managementPort());
                assertEquals(401, console.get("/outbox/api/summary", null).statusCode());
                assertEquals(401, console.get("/outbox/api/summary", basic(VIEWER, "wrong")).statusCode());
                assertEquals(401, console.replay(VIEWER, "wrong", "{\"status\": \"FAILED\"}").statusCode());
                assertEquals(500, console.get("/outbox/api/summary", basic(VIEWER, VIEWER_PASSWORD)).statusCode());
            }
        }
    }
}
