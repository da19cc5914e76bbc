package io.outboxrelay.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The commands as operators run them: {@code java -jar target/outbox-relay.jar COMMAND}, configured by the relay's
 * environment variables. They print their answer and exit; Camel never starts (nothing of its logging appears).
 */
class OperatorCommandsIT extends OutboxTableTestSupport {

    /** A table of its own for the replay, named by OUTBOX_TABLE. */
    private static CliFixture replayOutbox;
    private static UUID failed;
    private static UUID pending;

    @BeforeParameterizedClassInvocation
    static void rows() {
        outbox.insert("order/o-1", "FAILED");
        outbox.insert("order/o-2", "PENDING");
        outbox.insert("order/o-3", "PUBLISHED");
        outbox.insert("order/o-4", "FAILED");
        replayOutbox = new CliFixture(db, "replay_outbox").migrate();
        failed = replayOutbox.insert("order/o-1", "FAILED");
        pending = replayOutbox.insert("order/o-2", "PENDING");
    }


    @Test
    void statusPrintsTheBacklogAndExits() throws Exception {
        CliFixture.Result text = jar(Map.of("OUTBOX_DB_URL", db.url()), "status");
        assertEquals(0, text.exit(), text.toString());
        assertEquals("", text.err(), "no Camel, no log lines");
        assertTrue(text.out().startsWith("Outbox outbox at " + db.url() + "\n"), text.out());
        assertTrue(text.out().matches("(?s).*\n  PENDING +1\n.*\n  FAILED +2\n  PUBLISHED +1  .*"), text.out());

        CliFixture.Result json = jar(Map.of("OUTBOX_DB_URL", db.url()), "status", "--json");
        assertEquals(0, json.exit(), json.toString());
        JsonNode status = json.json();
        assertEquals(1, status.get("pending").asLong());
        assertEquals(2, status.get("failed").asLong());
        assertEquals(1, status.get("published").asLong());
    }

    @Test
    void failedThenReplayById() throws Exception {
        Map<String, String> environment = Map.of("OUTBOX_DB_URL", db.url(), "OUTBOX_TABLE", "replay_outbox");
        CliFixture.Result list = jar(environment, "failed", "--key", "order/o-1");
        assertEquals(0, list.exit(), list.toString());
        assertTrue(list.out().contains("\n" + failed + "  order/o-1  OrderCreated"), list.out());

        CliFixture.Result refused = jar(environment, "replay", "--id", pending.toString());
        assertEquals(3, refused.exit(), refused.toString());
        assertTrue(refused.err().startsWith("outbox-relay: replay refused, nothing changed: the id is not a FAILED "
                + "row of replay_outbox\n  " + pending + "  PENDING"), refused.err());

        CliFixture.Result replay = jar(environment, "replay", "--id", failed.toString());
        assertEquals(0, replay.exit(), replay.toString());
        assertEquals("", replay.err());
        assertTrue(replay.out().startsWith("Replayed 1 FAILED row of replay_outbox"), replay.out());
        assertEquals("PENDING", replayOutbox.status(failed));
        assertEquals(0, replayOutbox.row(failed).get("attempts"));
    }

    @Test
    void aBadTableNameExitsTwoNamingTheKey() throws Exception {
        Map<String, String> environment = new HashMap<>(Map.of("OUTBOX_DB_URL", db.url()));
        environment.put("OUTBOX_TABLE", "bad;name");
        CliFixture.Result result = jar(environment, "status");
        assertEquals(2, result.exit(), result.toString());
        assertEquals("", result.out());
        assertEquals("outbox-relay: invalid setting outbox.table='bad;name': expected [schema.]table of lower-case "
                + "letters, digits and '_', each part 1-63 characters\n", result.err());
    }

    @Test
    void aSystemPropertySetsTheTableToo() throws Exception {
        CliFixture.Result result = jar(Map.of("OUTBOX_DB_URL", db.url()), List.of("-Doutbox.table=other_outbox"),
                "status");
        assertEquals(1, result.exit(), result.toString());
        assertTrue(result.err().startsWith("outbox-relay: no outbox table other_outbox in the database at "),
                result.err());
    }

    @Test
    void anUnreachableDatabaseExitsOne() throws Exception {
        CliFixture.Result result = jar(Map.of("OUTBOX_DB_URL", "jdbc:postgresql://127.0.0.1:1/app"), "failed");
        assertEquals(1, result.exit(), result.toString());
        assertEquals("", result.out());
        assertTrue(result.err().startsWith("outbox-relay: cannot connect to the database at "
                + "jdbc:postgresql://127.0.0.1:1/app: Connection to 127.0.0.1:1 refused."), result.err());
        assertEquals(1, result.err().lines().count(), result.err());
    }

    @Test
    void aMistypedCommandDoesNotStartARelay() throws Exception {
        CliFixture.Result result = jar(Map.of("OUTBOX_DB_URL", db.url()), "stauts");
        assertEquals(2, result.exit(), result.toString());
        assertTrue(result.err().startsWith("outbox-relay: unknown command 'stauts' (no command runs the relay)"),
                result.err());
        assertEquals(1, result.err().lines().count(), result.err());
    }

    @Test
    void helpAndCompletionComeWithTheJar() throws Exception {
        CliFixture.Result help = jar(Map.of(), "--help");
        assertEquals(0, help.exit(), help.toString());
        assertEquals("", help.err());
        assertTrue(help.out().startsWith("Usage: java -jar outbox-relay.jar [-hV] COMMAND\n"), help.out());

        CliFixture.Result version = jar(Map.of(), "--version");
        assertEquals(0, version.exit(), version.toString());
        assertTrue(version.out().matches("outbox-relay \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n"), version.out());

        CliFixture.Result replayHelp = jar(Map.of(), "replay", "--help");
        assertEquals(0, replayHelp.exit(), replayHelp.toString());
        assertTrue(replayHelp.out().startsWith("Usage: java -jar outbox-relay.jar replay "), replayHelp.out());

        CliFixture.Result completion = jar(Map.of(), "completion");
        assertEquals(0, completion.exit(), completion.toString());
        assertTrue(completion.out().contains("\ncomplete -F _complete_outbox-relay "), completion.out());
    }

    private static CliFixture.Result jar(Map<String, String> environment, String... args) throws Exception {
        return jar(environment, List.of(), args);
    }

    /** {@code java [jvmOptions] -jar target/outbox-relay.jar ARGS}, stdout and stderr apart. */
    private static CliFixture.Result jar(Map<String, String> environment, List<String> jvmOptions, String... args)
            throws Exception {
        String jar = System.getProperty("relay.jar", "target/outbox-relay.jar");
        if (!Files.exists(Path.of(jar))) {
            throw new IllegalStateException(jar + " is missing: integration tests run after mvn package");
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("cli-", ".out");
        Path err = Files.createTempFile("cli-", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            // the test database's user (root on MariaDB), as an operator's environment gives it
            builder.environment().put("OUTBOX_DB_USER", db.user());
            builder.environment().putAll(environment);
            Process process = builder.start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("still running after 60 s: " + command + "\n" + Files.readString(err));
            }
            return new CliFixture.Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            delete(out);
            delete(err);
        }
    }

    private static void delete(Path file) throws IOException {
        Files.deleteIfExists(file);
    }
}
