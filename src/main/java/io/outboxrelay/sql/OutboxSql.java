package io.outboxrelay.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.outboxrelay.settings.Database;
import org.apache.camel.CamelContext;
import org.springframework.util.PlaceholderResolutionException;
import org.springframework.util.PropertyPlaceholderHelper;

/**
 * The relay's SQL lives in src/main/resources/sql/&lt;dialect&gt;/*.sql (one folder per database,
 * settings.Database.dialect(), the same statement names in each), written with {{...}} placeholders for the validated
 * settings (table name, batch size, ...). camel-sql does not resolve placeholders inside a query file, so each
 * statement is resolved here once and bound as a String bean "sql.NAME", which routes use as {@code sql:ref:sql.NAME}.
 * A part two statements share is a fragment of its own, spliced in as {@code {{sql:NAME}}}.
 */
public final class OutboxSql {

    /** The statements routes use through sql:ref:. */
    public static final List<String> STATEMENTS = List.of("claim", "mark", "record-failure", "heartbeat",
            "delete-expired", "archive-add-partitions", "archive-expired", "archive-drop-expired",
            "archive-delete-expired", "delete-released-holds",
            "backlog-stats", "inbox-record", "inbox-delete-expired");

    /** How a shared fragment is named in a placeholder: {@code {{sql:NAME}}}. */
    private static final String FRAGMENT = "sql:";
    /** Every placeholder resolved (no default values after ':', which a fragment's name would read as one). */
    private static final PropertyPlaceholderHelper ALL_PLACEHOLDERS = new PropertyPlaceholderHelper("{{", "}}", null,
            null, false);
    /** The fragments spliced, the settings' placeholders left as they are, for Camel to resolve. */
    private static final PropertyPlaceholderHelper FRAGMENTS_ONLY = new PropertyPlaceholderHelper("{{", "}}", null,
            null, true);

    private OutboxSql() {
    }

    /** Binds PostgreSQL's statements. */
    public static void bind(CamelContext context) {
        bind(context, Database.POSTGRESQL);
    }

    /** Binds the statements of the given database. */
    public static void bind(CamelContext context, Database database) {
        for (String name : STATEMENTS) {
            context.getRegistry().bind("sql." + name, resolved(context, database, name));
        }
    }

    /** A PostgreSQL statement with its placeholders resolved. */
    public static String resolved(CamelContext context, String name) {
        return resolved(context, Database.POSTGRESQL, name);
    }

    /** A statement with its placeholders resolved, for the few beans that run SQL over plain JDBC. */
    public static String resolved(CamelContext context, Database database, String name) {
        return context.resolvePropertyPlaceholders(load(database, name));
    }

    /**
     * A statement with its placeholders replaced by the given values, for code that runs SQL without a CamelContext
     * (the operator commands of io.outboxrelay.cli). The values must be validated settings, such as
     * {@code TableName.qualified()}: they are spliced into the text. Every placeholder must have a value.
     */
    public static String resolved(String name, Map<String, String> values) {
        return resolved(Database.POSTGRESQL, name, values);
    }

    /** {@link #resolved(String, Map)} in the given database's dialect. */
    public static String resolved(Database database, String name, Map<String, String> values) {
        try {
            return ALL_PLACEHOLDERS.replacePlaceholders(read(database, name), placeholder ->
                    placeholder.startsWith(FRAGMENT) ? fragment(database, placeholder) : values.get(placeholder));
        } catch (PlaceholderResolutionException e) {
            throw new IllegalStateException(resource(database, name) + ": no value for {{" + e.getPlaceholder()
                    + "}}");
        }
    }

    /**
     * The statement's text, with every shared fragment it splices as {@code {{sql:NAME}}} (sql/NAME.sql) in place:
     * expanded here, before any placeholder, so the relay, the operator commands and the benchmarks run one text.
     */
    static String load(String name) {
        return load(Database.POSTGRESQL, name);
    }

    static String load(Database database, String name) {
        return FRAGMENTS_ONLY.replacePlaceholders(read(database, name), placeholder ->
                placeholder.startsWith(FRAGMENT) ? fragment(database, placeholder) : null);
    }

    /**
     * A fragment's text without its own comment, which says what it is where it is written; the placeholders in it
     * are resolved with the statement's.
     */
    private static String fragment(Database database, String placeholder) {
        return read(database, placeholder.substring(FRAGMENT.length())).lines()
                .filter(line -> !line.strip().startsWith("--")).collect(Collectors.joining("\n")).strip();
    }

    private static String resource(Database database, String name) {
        return "sql/" + database.dialect() + "/" + name + ".sql";
    }

    private static String read(Database database, String name) {
        String resource = resource(database, name);
        try (InputStream in = OutboxSql.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
