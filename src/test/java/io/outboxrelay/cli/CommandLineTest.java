package io.outboxrelay.cli;

import io.outboxrelay.settings.Database;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every command shares: which arguments are a command, help (the top one and each command's), unknown commands,
 * bash completion, bad settings (exit 2, one line naming the key, nothing run), an unreachable database (exit 1, one
 * clear line); on PostgreSQL and MariaDB.
 */
@Tag("services")
class CommandLineTest extends OutboxTableTestSupport {

    @Test
    void aFirstWordIsACommandNoArgumentsOrCamelOptionsRunTheRelay() {
        assertFalse(OperatorCommands.isCommand(new String[0]));
        assertFalse(OperatorCommands.isCommand(new String[] {"-duration", "60"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"status"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"stauts"}), "a typo must not start a relay");
        assertTrue(OperatorCommands.isCommand(new String[] {"--help"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"-h"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"--version"}));
        assertTrue(OperatorCommands.isCommand(new String[] {"-V"}));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--version", "-V", "status --version", "replay -V"})
    void versionPrintsOneLineAndRunsNothing(String command) {
        // a bad table would stop a command: --version does not read the settings
        CliFixture.Result result = new CliFixture(db, "outbox").set("outbox.table", "bad;name")
                .run(command.split(" "));
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        // the classes, not the jar: no manifest (OperatorCommandsIT checks the jar's version)
        assertEquals("outbox-relay (not built as a jar)\n", result.out());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "help", "--help", "-h"})
    void helpPrintsTheUsageOfEveryCommand(String command) {
        CliFixture.Result result = outbox.run(command.isEmpty() ? new String[0] : new String[] {command});
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        assertTrue(result.out().startsWith("Usage: java -jar outbox-relay.jar [-hV] COMMAND\n"), result.out());
        assertTrue(result.out().contains("Without arguments the jar runs the relay."), result.out());
        for (String name : new String[] {"status", "failed", "replay", "validate", "help", "completion"}) {
            assertTrue(result.out().matches("(?s).*\n  " + name + " +[A-Z].*"), name + " listed:\n" + result.out());
        }
        assertTrue(result.out().matches("(?s).*\nExit codes:\n  0 +done\n  1 +database unreachable or database "
                + "error\n  2 +bad usage or bad setting\n  3 +replay refused \\(nothing changed\\)\n"
                + "  4 +validate: some "
                + "PENDING rows would fail their schema\n"), result.out());
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
        "status --help       => status [-hV] [--json]",
        "failed -h           => failed [-hV] [--json] [--limit=N] [--key=TYPE/ID |",
        "replay --all --help => replay [-hV] [--dry-run] (--id=UUID [--id=UUID]... | --all |",
        "help replay         => replay [-hV] [--dry-run] (--id=UUID [--id=UUID]... | --all |",
        "completion --help   => completion [-hV]",
        "validate --help     => validate [-hV] [--json] [--limit=N]",
    })
    void aCommandsHelpPrintsItsUsageAndRunsNothing(String command, String synopsis) {
        // a bad table would stop the command: help does not read the settings
        CliFixture.Result result = new CliFixture(db, "outbox").set("outbox.table", "bad;name")
                .run(command.split(" "));
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        assertTrue(result.out().startsWith("Usage: java -jar outbox-relay.jar " + synopsis), result.out());
        assertTrue(result.out().contains("  -h, --help "), result.out());
    }

    @Test
    void anUnknownCommandIsBadUsage() {
        CliFixture.Result result = outbox.run("stauts", "--json");
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out());
        assertEquals(1, result.err().lines().count(), result.err());
        assertTrue(result.err().startsWith("outbox-relay: unknown command 'stauts' (no command runs the relay); "
                + "did you mean status?"), result.err());
        assertTrue(result.err().strip().endsWith("('--help' shows the usage)"), result.err());
    }

    @Test
    void completionPrintsABashScriptForTheCommandsAndTheirOptions() {
        CliFixture.Result result = outbox.run("completion");
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        assertTrue(result.out().startsWith("#!/usr/bin/env bash\n"), result.out());
        assertTrue(result.out().contains("\ncomplete -F _complete_outbox-relay -o default outbox-relay "),
                result.out());
        assertTrue(result.out().contains("local commands=\"status failed replay validate help completion\""),
                result.out());
        for (String option : new String[] {"--json", "--limit", "--key", "--aggregate-type", "--id", "--all",
            "--dry-run"}) {
            assertTrue(result.out().contains(option), option);
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "outbox.table             | bad;name                 | outbox.table='bad;name': expected [schema.]table of",
        "outbox.table             | a.b.c                    | outbox.table='a.b.c': expected [schema.]table",
        "outbox.db.url            | jdbc:mysql://localhost/x | outbox.db.url='jdbc:mysql://localhost/x': MySQL is "
                + "untested; for MariaDB 10.11+ use a jdbc:mariadb: URL",
        "outbox.db.url            | jdbc:postgresql://h:x/db | outbox.db.url='jdbc:postgresql://h:x/db': not a "
                + "PostgreSQL JDBC URL",
        "outbox.db.url            | jdbc:mariadb://h:x/db    | outbox.db.url='jdbc:mariadb://h:x/db': not a "
                + "MariaDB JDBC URL",
        "outbox.failed-blocks-key | maybe                    | outbox.failed-blocks-key='maybe': expected true or "
                + "false",
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
        assertTrue(result.err().startsWith("outbox-relay: replay: Error: Missing required argument (specify one of "
                + "these): (--id=UUID"), result.err());
        assertFalse(result.err().contains("outbox.table"), result.err());
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
        String url = "jdbc:" + db.database().dialect() + "://127.0.0.1:1/" + "app";
        for (String command : new String[] {"status", "failed --json", "replay --all"}) {
            long start = System.nanoTime();
            CliFixture.Result result = new CliFixture(db, "outbox")
                    .set("outbox.db.url", url + "?password=hunter2")
                    .run(command.split(" "));
            assertEquals(1, result.exit(), result.toString());
            assertEquals("", result.out());
            assertTrue(result.err().startsWith("outbox-relay: cannot connect to the database at " + url + ": "),
                    result.err());
            assertTrue(result.err().contains(db.database() == Database.MARIADB ? "Connection refused"
                    : ": Connection to 127.0.0.1:1 refused. Check that the hostname and port are correct"),
                    result.err());
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
