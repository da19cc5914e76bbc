package io.outboxrelay.console;

import java.nio.file.Files;
import java.nio.file.Path;
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
 * Without users the console does not exist (/outbox/** is 404, the rest of the management server unchanged); with
 * users, a wrong or missing credential is refused without the database: a relay whose database is unreachable still
 * answers it 401 (while a valid user's query fails, 500).
 */
@Tag("services")
class ConsoleOffTest {

    @Test
    void withoutUsersTheConsoleIsNotServed() {
        try (TestDatabase db = TestDatabase.create();
                RelayInstance relay = RelayInstance.start(RelayInstance.reportingSettings(db))) {
            ConsoleClient console = new ConsoleClient(relay.managementPort());
            for (String path : new String[] {"/outbox/", "/outbox/index.html", "/outbox/api/summary",
                "/outbox/api/events", "/outbox/api/openapi.json"}) {
                assertEquals(404, console.get(path, basic(VIEWER, VIEWER_PASSWORD)).statusCode(), path);
            }
            assertEquals(200, console.get("/observe/health", null).statusCode());
        }
    }

    @Test
    void aWrongCredentialCostsNoDatabaseQuery() throws Exception {
        Path dir = Files.createTempDirectory("console-off");
        try (TestDatabase db = TestDatabase.create()) {
            Map<String, String> settings = RelayInstance.reportingSettings(db);
            settings.putAll(ConsoleClient.settings(dir));
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
