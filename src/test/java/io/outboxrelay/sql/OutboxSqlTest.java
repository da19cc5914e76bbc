package io.outboxrelay.sql;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.outboxrelay.settings.Database;

import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SQL files' {{...}} placeholders: resolved from the settings, none left behind, a missing value named. */
class OutboxSqlTest {

    /** What the operator commands resolve every statement with (cli.OutboxDatabase). */
    private static final Map<String, String> OPERATOR_VALUES = Map.of("outbox.table", "app.outbox",
            "outbox.failed-blocks-key", "true", "inbox.table", "app.inbox");
    /** A shared fragment spliced into a statement, as {@link #handWritten} finds it. */
    private static final Pattern FRAGMENT = Pattern.compile("\\{\\{sql:([a-z-]+)}}");

    @Test
    void placeholdersAreReplacedByTheirValues() {
        String mark = OutboxSql.resolved("mark", Map.of("outbox.table", "app.outbox"));

        assertTrue(mark.contains("UPDATE app.outbox"), mark);
        assertFalse(mark.contains("{{"), mark);
    }

    @Test
    void aSharedFragmentIsSplicedIntoEachStatementThatUsesIt() {
        String fragment = OutboxSql.resolved("expired-rows", Map.of("outbox.table", "app.outbox"));
        String selection = fragment.substring(fragment.indexOf("SELECT ctid")).strip();
        for (String statement : List.of("delete-expired", "archive-expired")) {
            String sql = OutboxSql.resolved(statement, Map.of("outbox.table", "app.outbox"));
            assertTrue(sql.contains("ANY(ARRAY(" + selection + "))"), sql);
            assertFalse(sql.contains("{{"), sql);
            assertFalse(sql.contains("The retention janitor's batch"), "the fragment's comment stays in its file");
        }
    }

    @Test
    void everyPlaceholderOfAStatementIsReplaced() {
        String claim = OutboxSql.resolved("claim", Map.of("outbox.table", "app.outbox"));

        assertTrue(claim.contains("FROM app.outbox o"), claim);
        assertTrue(claim.contains("JOIN app.outbox_partitions p"), claim);
        assertTrue(claim.contains("app.outbox_held_keys h"), claim);
    }

    @Test
    void aMissingValueFailsNamingThePlaceholderAndTheFile() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OutboxSql.resolved("inbox-record", Map.of("outbox.table", "outbox")));

        assertEquals("sql/postgresql/inbox-record.sql: no value for {{inbox.table}}", e.getMessage());
    }

    @Test
    void anUnknownStatementFailsNamingIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> OutboxSql.resolved("no-such-statement", Map.of()));

        assertEquals("missing sql/postgresql/no-such-statement.sql", e.getMessage());
    }

    @Test
    void everyStatementFileResolvesWithTheOperatorsValues() throws IOException, URISyntaxException {
        List<String> names = statementFiles();
        assertTrue(names.containsAll(OutboxSql.STATEMENTS), "the routes' statements are among " + names);

        for (String name : names) {
            String sql = OutboxSql.resolved(name, OPERATOR_VALUES);
            assertFalse(sql.contains("{{"), name);
            assertEquals(OutboxSql.load(name).contains("{{outbox.table}}"), sql.contains("app.outbox"), name);
        }
    }

    @Test
    void theRoutesStatementsResolveFromTheContextsProperties() throws Exception {
        Properties properties = new Properties();
        try (var in = getClass().getClassLoader().getResourceAsStream("application.properties")) {
            properties.load(in);
        }
        properties.setProperty("outbox.table", "relay.events");
        properties.setProperty("inbox.table", "relay.received");
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getPropertiesComponent().setInitialProperties(properties);

            for (String name : OutboxSql.STATEMENTS) {
                String sql = OutboxSql.resolved(context, name);
                assertFalse(sql.contains("{{"), name);
                assertTrue(sql.contains(name.startsWith("inbox-") ? "relay.received" : "relay.events"), name);
            }
            // the settings camel-sql binds per exchange are simple expressions, left for camel-sql
            assertTrue(OutboxSql.resolved(context, "record-failure").contains("${bean:relaySettings.maxAttempts}"));
        }
    }

    @Test
    void theRoutesStatementsAreBoundAsSqlRefBeans() throws Exception {
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            context.getPropertiesComponent().addInitialProperty("outbox.table", "outbox");
            context.getPropertiesComponent().addInitialProperty("outbox.failed-blocks-key", "false");
            context.getPropertiesComponent().addInitialProperty("inbox.table", "inbox");

            OutboxSql.bind(context);

            for (String name : OutboxSql.STATEMENTS) {
                assertEquals(OutboxSql.resolved(context, name), context.getRegistry().lookupByName("sql." + name));
            }
        }
    }

    /**
     * Every file of both dialects resolves to the very text the hand-written resolution gave before Spring's
     * PropertyPlaceholderHelper did the work ({@link #handWritten}): through the operator commands' values and through
     * a context's properties.
     */
    @Test
    void everyStatementResolvesByteForByteAsTheHandWrittenResolutionDid() throws Exception {
        Map<String, String> values = Map.of("outbox.table", "app.outbox", "inbox.table", "app.inbox");
        try (DefaultCamelContext context = new DefaultCamelContext()) {
            values.forEach(context.getPropertiesComponent()::addInitialProperty);
            for (Database database : Database.values()) {
                for (String name : statementFiles(database)) {
                    String before = handWritten(database, name);
                    assertEquals(before.replace("{{outbox.table}}", "app.outbox").replace("{{inbox.table}}",
                            "app.inbox"), OutboxSql.resolved(database, name, values), database + " " + name);
                    assertEquals(context.resolvePropertyPlaceholders(before),
                            OutboxSql.resolved(context, database, name), database + " " + name);
                }
            }
        }
    }

    /** The statement's text as OutboxSql spliced its fragments by hand, before PropertyPlaceholderHelper. */
    private static String handWritten(Database database, String name) throws IOException {
        String sql;
        try (var in = OutboxSqlTest.class.getClassLoader()
                .getResourceAsStream("sql/" + database.dialect() + "/" + name + ".sql")) {
            sql = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        Matcher fragment = FRAGMENT.matcher(sql);
        StringBuilder expanded = new StringBuilder();
        while (fragment.find()) {
            String text = handWritten(database, fragment.group(1)).lines()
                    .filter(line -> !line.strip().startsWith("--")).collect(Collectors.joining("\n"));
            fragment.appendReplacement(expanded, Matcher.quoteReplacement(text.strip()));
        }
        fragment.appendTail(expanded);
        return expanded.toString();
    }

    /** The names of src/main/resources/sql/postgresql/*.sql, as built onto the classpath. */
    private static List<String> statementFiles() throws IOException, URISyntaxException {
        return statementFiles(Database.POSTGRESQL);
    }

    /** The names of src/main/resources/sql/DIALECT/*.sql, as built onto the classpath. */
    private static List<String> statementFiles(Database database) throws IOException, URISyntaxException {
        Path folder = Path.of(OutboxSql.class.getClassLoader().getResource("sql/" + database.dialect() + "/mark.sql")
                .toURI()).getParent();
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sql"))
                    .map(n -> n.substring(0, n.length() - 4)).sorted().toList();
        }
    }
}
