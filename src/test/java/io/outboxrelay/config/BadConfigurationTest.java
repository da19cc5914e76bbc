package io.outboxrelay.config;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A bad setting stops the process at once, non-zero, with one line naming the key, before any SQL runs. */
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
        "OUTBOX_FAILED_BLOCKS_KEY       | maybe                        | outbox.failed-blocks-key",
        "OUTBOX_DB_URL                  | jdbc:mysql://localhost/x     | outbox.db.url",
        "OUTBOX_REDELIVERY_DELAY_MS     | 1e3                          | outbox.redelivery.delay-ms",
        "OUTBOX_CLAIM_BATCHES_IN_FLIGHT | 0                            | outbox.claim.batches-in-flight",
        "OUTBOX_DB_POOL_SIZE            | 3                            | outbox.db.pool-size",
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
}
