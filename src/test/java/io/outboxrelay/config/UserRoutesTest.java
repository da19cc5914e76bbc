package io.outboxrelay.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A YAML DSL route dropped into outbox.routes-dir runs beside the built-in ones and can use the relay's beans; the
 * built-in routes are listed one by one (no classpath scan), and the list names every file of routes/.
 */
@Tag("services")
class UserRoutesTest {

    @Test
    void everyBuiltInRouteFileIsLoaded() throws Exception {
        try (var files = Files.list(Path.of("src/main/resources/routes"))) {
            // the console's routes are listed apart: loaded only when it has users
            assertEquals(files.map(f -> f.getFileName().toString()).sorted().toList(),
                    java.util.stream.Stream.concat(UserRoutes.BUILT_IN_ROUTES.stream(),
                            java.util.stream.Stream.of(UserRoutes.CONSOLE_ROUTES)).sorted().toList());
        }
    }

    @Test
    void yamlRouteInTheRoutesDirectoryRuns() throws Exception {
        Path dir = Files.createTempDirectory("user-routes");
        Files.writeString(dir.resolve("audit.camel.yaml"), """
                - route:
                    id: user-audit
                    from:
                      uri: timer:user-audit
                      parameters:
                        repeatCount: 1
                      steps:
                        - to:
                            uri: "sql:INSERT INTO user_route_ran (note) VALUES ('hello from YAML')"
                            parameters:
                              dataSource: "#outboxDataSource"
                """);
        try (TestDatabase db = TestDatabase.create()) {
            db.update("CREATE TABLE user_route_ran (note text)");
            Map<String, String> settings = RelayInstance.settings(db, "kafka:unused", "127.0.0.1:1");
            settings.put("outbox.routes-dir", dir.toString());
            try (RelayInstance relay = RelayInstance.start(settings)) {
                assertEquals("user-audit", relay.context().getRoute("user-audit").getRouteId());
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> db.count("SELECT count(*) FROM user_route_ran") == 1);
            }
            assertEquals("hello from YAML", db.query("SELECT note FROM user_route_ran").get(0).get("note"));
        }
    }
}
