package io.outboxrelay.cli;

import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every command shares: which arguments are a command, help, unknown commands, bad settings (exit 2, one line
 * naming the key, nothing run), an unreachable database (exit 1, one clear line).
 */
class CommandLineTest {

    private static TestDatabase db;
    private static CliFixture outbox;

    @BeforeAll
    static void table() {
        db = TestDatabase.create();
        outbox = new CliFixture(db, "outbox").migrate();
    }

    @AfterAll
    static void drop() {
        db.close();
    }

    @Test
    void aFirstWordIsACommandNoArgumentsOrCamelOptionsRunTheRelay() {
        assertFalse(OperatorCommands.isCommand(new String[0]));
        assertFalse(OperatorCommands.isCommand(new String[] {"-duration", "60"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"status"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"stauts"}), "a typo must not start a relay");
        assertTrue(OperatorCommands.isCommand(new String[] {"--help"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"-h"}));
    }

    @ParameterizedTest
    @ValueSource(strings = {"help", "--help", "-h", "status --help", "replay --all --help"})
    void helpPrintsTheUsage(String command) {
        CliFixture.Result result = outbox.run(command.split(" "));
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        assertTrue(result.out().startsWith("Usage: java -jar outbox-relay.jar "), result.out());
        for (String usage : new String[] {StatusCommand.USAGE, FailedCommand.USAGE, ReplayCommand.USAGE}) {
            assertTrue(result.out().contains("\n  " + usage + "\n"), result.out());
        }
        assertTrue(result.out().contains("Exit codes: 0 done, 1 database unreachable or database error, 2 bad usage "
                + "or bad setting,\n3 replay refused (nothing changed)."), result.out());
    }

    @Test
    void anUnknownCommandIsBadUsage() {
        CliFixture.Result result = outbox.run("stauts", "--json");
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out());
        assertEquals("outbox-relay: unknown command 'stauts': expected status, failed, replay or help "
                + "(no command runs the relay) ('help' shows the usage)\n", result.err());
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "outbox.table             | bad;name                 | outbox.table='bad;name': expected [schema.]table of",
        "outbox.table             | a.b.c                    | outbox.table='a.b.c': expected [schema.]table",
        "outbox.db.url            | jdbc:mysql://localhost/x | outbox.db.url='jdbc:mysql://localhost/x': expected a "
                + "jdbc:postgresql: URL",
        "outbox.db.url            | jdbc:postgresql://h:x/db | outbox.db.url='jdbc:postgresql://h:x/db': not a "
                + "PostgreSQL JDBC URL",
        "outbox.failed-blocks-key | maybe                    | outbox.failed-blocks-key='maybe': expected true or false",
    })
    void aBadSettingExitsTwoNamingTheKey(String key, String value, String message) {
        for (String command : new String[] {"status", "failed", "replay --all"}) {
            CliFixture.Result result = new CliFixture(db, "outbox").set(key, value).run(command.split(" "));
            assertEquals(2, result.exit(), result.toString());
            assertEquals("", result.out());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().startsWith("outbox-relay: invalid setting " + message), result.err());
        }
    }

    @Test
    void badUsageIsReportedBeforeABadSetting() {
        CliFixture.Result result = new CliFixture(db, "outbox").set("outbox.table", "bad;name").run("replay");
        assertEquals(2, result.exit(), result.toString());
        assertTrue(result.err().startsWith("outbox-relay: replay: say which FAILED rows"), result.err());
    }

    @Test
    void theRelaysOtherSettingsDoNotStopTheCommands() {
        CliFixture.Result result = new CliFixture(db, "outbox")
                .set("outbox.batch-size", "abc")
                .set("outbox.endpoint", "kafak:orders")
                .run("status", "--json");
        assertEquals(0, result.exit(), result.toString());
    }

    @Test
    void anUnreachableDatabaseExitsOneWithOneClearLine() {
        String url = "jdbc:postgresql://127.0.0.1:1/" + "app";
        for (String command : new String[] {"status", "failed --json", "replay --all"}) {
            long start = System.nanoTime();
            CliFixture.Result result = new CliFixture(db, "outbox")
                    .set("outbox.db.url", url + "?password=hunter2")
                    .run(command.split(" "));
            assertEquals(1, result.exit(), result.toString());
            assertEquals("", result.out());
            assertTrue(result.err().startsWith("outbox-relay: cannot connect to the database at " + url
                    + ": Connection to 127.0.0.1:1 refused. Check that the hostname and port are correct"), result.err());
            assertEquals(1, result.err().lines().count(), result.err());
            assertFalse(result.err().contains("hunter2"), "the URL is shown without its query string");
            assertTrue(System.nanoTime() - start < 15_000_000_000L, "fails fast");
        }
    }

    @Test
    void aWrongPasswordIsADatabaseError() {
        CliFixture.Result result = new CliFixture(db, "outbox").set("outbox.db.user", "no_such_user").run("status");
        assertEquals(1, result.exit(), result.toString());
        assertTrue(result.err().startsWith("outbox-relay: cannot connect to the database at " + db.url() + ": "),
                result.err());
        assertEquals(1, result.err().lines().count(), result.err());
    }
}
