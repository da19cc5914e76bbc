package io.outboxrelay.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bad setting stops the process at once, non-zero, with one line naming the key, before any SQL runs; so does a
 * partition count other than the outbox's own.
 */
@Tag("services")
class BadConfigurationTest {

    private static TestDatabase db;

    @BeforeAll
    static void createDatabase() {
        db = TestDatabase.create();
    }

    @AfterAll
    static void dropDatabase() {
        db.close();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "OUTBOX_BATCH_SIZE              | abc                          | outbox.batch-size",
        "OUTBOX_BATCH_SIZE              | 0                            | outbox.batch-size",
        "OUTBOX_MAX_ATTEMPTS            | -3                           | outbox.max-attempts",
        "OUTBOX_ENDPOINT                | kafak:orders                 | outbox.endpoint",
        "OUTBOX_TABLE                   | outbox; DROP TABLE orders    | outbox.table",
        "OUTBOX_TABLE                   | \"Outbox\"                   | outbox.table",
        "OUTBOX_RETENTION               | 7 days                       | outbox.retention",
        "OUTBOX_RETENTION_MODE          | move                         | outbox.retention.mode",
        "OUTBOX_RETENTION_MODE          | ARCHIVE                      | outbox.retention.mode",
        "OUTBOX_ARCHIVE_RETENTION       | 30 days                      | outbox.archive.retention",
        "OUTBOX_FAILED_BLOCKS_KEY       | maybe                        | outbox.failed-blocks-key",
        "OUTBOX_DB_URL                  | jdbc:mysql://localhost/x     | outbox.db.url",
        "OUTBOX_DB_URL                  | jdbc:sqlserver://localhost   | outbox.db.url",
        "OUTBOX_REDELIVERY_DELAY_MS     | 1e3                          | outbox.redelivery.delay-ms",
        "OUTBOX_PARTITIONS              | 0                            | outbox.partitions",
        "OUTBOX_LEASE                   | PT5S                         | outbox.lease",
        "OUTBOX_INSTANCE_STALE_AFTER    | PT3S                         | outbox.instance.stale-after",
        "OUTBOX_INSTANCE_HEARTBEAT      | 5s                           | outbox.instance.heartbeat",
        "OUTBOX_DB_POOL_SIZE            | 3                            | outbox.db.pool-size",
        "OUTBOX_WAKE_UP                 | listen                       | outbox.wake-up",
        "OUTBOX_WAKE_UP_MAX_INTERVAL_MS | 0                            | outbox.wake-up.max-interval-ms",
        "INBOX_TABLE                    | inbox; DROP TABLE orders     | inbox.table",
        "INBOX_TABLE                    | Inbox                        | inbox.table",
        "INBOX_RETENTION                | 7 days                       | inbox.retention",
        "INBOX_SCHEMA_MIGRATE           | yes                          | inbox.schema.migrate",
        "OUTBOX_AMQP_BROKER_URL         | tcp://localhost:5672         | outbox.amqp.broker-url",
        "OUTBOX_AMQP_BROKER_URL         | amqp://guest:guest@rabbit    | outbox.amqp.broker-url",
        "OUTBOX_SCHEMAS_DIR             | no/such/directory            | outbox.schemas-dir",
        "OUTBOX_CONSOLE_VIEWERS         | no/such/viewers.htpasswd     | outbox.console.viewers",
    })
    void exitsNonZeroNamingTheKey(String variable, String value, String key) {
        Map<String, String> environment = new HashMap<>(Map.of("OUTBOX_DB_URL", db.url()));
        environment.put(variable, value);
        try (RelayProcess relay = RelayProcess.start(environment)) {
            int exit = relay.waitForExit(Duration.ofSeconds(30));
            String output = relay.output();
            assertEquals(2, exit, output);
            assertTrue(output.lines().anyMatch(line -> line.startsWith("outbox-relay: invalid setting " + key + "=")),
                    output);
        }
        assertEquals(0, db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"),
                "nothing was migrated or run against the database");
    }

    /** On MariaDB, what is PostgreSQL's alone (LISTEN/NOTIFY) stops the relay the same way, nothing migrated. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "OUTBOX_WAKE_UP          | notify  | outbox.wake-up",
    })
    void onMariaDbExitsNonZeroNamingTheKey(String variable, String value, String key) {
        try (TestDatabase mariadb = TestDatabase.create(Database.MARIADB)) {
            Map<String, String> environment = new HashMap<>(Map.of("OUTBOX_DB_URL", mariadb.url(),
                    "OUTBOX_DB_USER", mariadb.user(), variable, value));
            try (RelayProcess relay = RelayProcess.start(environment)) {
                int exit = relay.waitForExit(Duration.ofSeconds(30));
                String output = relay.output();
                assertEquals(2, exit, output);
                assertTrue(output.lines().anyMatch(line -> line.startsWith("outbox-relay: invalid setting " + key
                        + "=")), output);
            }
            assertEquals(0, mariadb.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                    + "DATABASE()"), "nothing was migrated or run against the database");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "does not parse        | {\"type\": \"object\"       | does not parse",
        "not a valid schema    | {\"type\": \"text\"}         | is not a valid schema",
    })
    void anEventSchemaThatIsNotAValidSchemaStopsTheRelayNamingTheSettingAndTheFile(String name, String content,
            String expected, @TempDir Path schemas) throws IOException {
        Path file = schemas.resolve("order").resolve("OrderPlaced.schema.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        String output = refused("OUTBOX_SCHEMAS_DIR", schemas.toString());
        assertTrue(output.lines().anyMatch(line -> line.startsWith("outbox-relay: invalid setting "
                + "outbox.schemas-dir='" + schemas + "': schema file " + file + " " + expected)), output);
    }

    /** The relay's output, after it stopped with exit code 2 and ran nothing against the database. */
    private static String refused(String variable, String value) {
        Map<String, String> environment = new HashMap<>(Map.of("OUTBOX_DB_URL", db.url(), variable, value));
        String output;
        try (RelayProcess relay = RelayProcess.start(environment)) {
            int exit = relay.waitForExit(Duration.ofSeconds(30));
            output = relay.output();
            assertEquals(2, exit, output);
        }
        assertEquals(0, db.count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"),
                "nothing was migrated or run against the database");
        return output;
    }

    @Test
    void aConsoleUserFileWithoutBcryptStopsTheRelayWithoutShowingTheHashes(@TempDir Path dir) throws IOException {
        Path operators = dir.resolve("operators.htpasswd");
        // htpasswd -nbm (MD5) and -nbs (SHA-1) lines: not bcrypt
        Files.writeString(operators,
                "ann:$apr1$Qa3jK1mz$VnwBDn5z0dI7M8cPSGqG/1\nbob:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n");
        String output = refused("OUTBOX_CONSOLE_OPERATORS", operators.toString());
        assertTrue(output.lines().anyMatch(line -> line.equals("outbox-relay: invalid setting "
                + "outbox.console.operators='" + operators + "': line 1 is not name:bcrypt-hash (write entries "
                + "with htpasswd -nbB name password)")), output);
        assertTrue(!output.contains("$apr1$") && !output.contains("{SHA}"), output);
    }

    @Test
    void aPartitionCountOtherThanTheOutboxsOwnIsRefused() {
        try (TestDatabase other = TestDatabase.create()) {
            Map<String, String> environment = new HashMap<>(Map.of("OUTBOX_DB_URL", other.url(),
                    "CAMEL_COMPONENT_KAFKA_BROKERS", "127.0.0.1:1", "OUTBOX_ROUTES_DIR", "target/no-extra-routes"));
            try (RelayProcess first = RelayProcess.start(environment, "-Dcamel.management.port=0")) {
                first.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
            }
            environment.put("OUTBOX_PARTITIONS", "64");
            try (RelayProcess second = RelayProcess.start(environment, "-Dcamel.management.port=0")) {
                int exit = second.waitForExit(Duration.ofSeconds(30));
                String output = second.output();
                assertEquals(2, exit, output);
                assertTrue(output.lines().anyMatch(
                        line -> line.startsWith("outbox-relay: invalid setting outbox.partitions='64'")
                                && line.contains("has 32 partitions")), output);
            }
        }
    }
}
