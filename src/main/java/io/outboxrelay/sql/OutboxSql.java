package io.outboxrelay.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.camel.CamelContext;

/**
 * The relay's SQL lives in src/main/resources/sql/*.sql, written with {{...}} placeholders for the validated settings
 * (table name, batch size, ...). camel-sql does not resolve placeholders inside a query file, so each statement is
 * resolved here once and bound as a String bean "sql.NAME", which routes use as {@code sql:ref:sql.NAME}. A part two
 * statements share is a fragment of its own, spliced in as {@code {{sql:NAME}}}.
 */
public final class OutboxSql {

    /** The statements routes use through sql:ref:. */
    public static final List<String> STATEMENTS = List.of("claim", "mark", "record-failure", "heartbeat",
            "delete-expired", "archive-add-partitions", "archive-expired", "archive-drop-expired",
            "delete-released-holds",
            "backlog-stats", "inbox-record", "inbox-delete-expired");

    private static final Pattern FRAGMENT = Pattern.compile("\\{\\{sql:([a-z-]+)}}");

    private OutboxSql() {
    }

    public static void bind(CamelContext context) {
        for (String name : STATEMENTS) {
            context.getRegistry().bind("sql." + name, resolved(context, name));
        }
    }

    /** A statement with its placeholders resolved, for the few beans that run SQL over plain JDBC. */
    public static String resolved(CamelContext context, String name) {
        return context.resolvePropertyPlaceholders(load(name));
    }

    /**
     * A statement with its placeholders replaced by the given values, for code that runs SQL without a CamelContext
     * (the operator commands of io.outboxrelay.cli). The values must be validated settings, such as
     * {@code TableName.qualified()}: they are spliced into the text. Every placeholder must have a value.
     */
    public static String resolved(String name, Map<String, String> values) {
        String sql = load(name);
        for (Map.Entry<String, String> value : values.entrySet()) {
            sql = sql.replace("{{" + value.getKey() + "}}", value.getValue());
        }
        int unresolved = sql.indexOf("{{");
        if (unresolved >= 0) {
            int end = sql.indexOf("}}", unresolved);
            throw new IllegalStateException("sql/" + name + ".sql: no value for "
                    + sql.substring(unresolved, end < 0 ? sql.length() : end + 2));
        }
        return sql;
    }

    /**
     * The statement's text, with every shared fragment it splices as {@code {{sql:NAME}}} (sql/NAME.sql) in place:
     * expanded here, before any placeholder, so the relay, the operator commands and the benchmarks run one text.
     */
    static String load(String name) {
        String sql = read(name);
        Matcher fragment = FRAGMENT.matcher(sql);
        StringBuilder expanded = new StringBuilder();
        while (fragment.find()) {
            // the fragment without its own comment, which says what it is where it is written
            String text = load(fragment.group(1)).lines().filter(line -> !line.strip().startsWith("--"))
                    .collect(Collectors.joining("\n"));
            fragment.appendReplacement(expanded, Matcher.quoteReplacement(text.strip()));
        }
        fragment.appendTail(expanded);
        return expanded.toString();
    }

    private static String read(String name) {
        String resource = "sql/" + name + ".sql";
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
