package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.EventSchemas.EventSchema;
import io.outboxrelay.event.Violation;
import io.outboxrelay.settings.InvalidSettingException;
import io.outboxrelay.settings.OperatorSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The {@code validate} command: every PENDING row checked against the event schemas of outbox.schemas-dir as they are
 * now (loaded and checked as the relay loads them), so that a schema change can be tried on the backlog before it is
 * deployed. Read-only: nothing is published and no row changes.
 */
@Command(name = "validate", description = {"Checks every PENDING row against the event schemas in outbox.schemas-dir "
        + "as they are now, without publishing or changing anything, and lists the rows that would fail (id, key, "
        + "event type, schema file, failing JSON pointers; every error with --json), oldest first. Exit code 4 when "
        + "some would fail."})
final class ValidateCommand extends OutboxCommand {

    /** Rows read from the cursor at a time: the backlog may be millions of rows. */
    private static final int FETCH_SIZE = 1_000;
    private static final int ERRORS_WIDTH = 100;

    @Mixin
    Listing listing;

    @Override
    int run(Connection connection, OperatorSettings settings, PrintWriter out, PrintWriter err) throws SQLException {
        if (settings.schemasDir().isEmpty()) {
            throw new InvalidSettingException(EventSchemas.SETTING, "",
                    "names no directory: there are no schemas to check against");
        }
        EventSchemas schemas = EventSchemas.load(settings.schemasDir());
        long checked = 0;
        long withoutSchema = 0;
        long failing = 0;
        List<Map<String, Object>> rows = new ArrayList<>();
        // a cursor (autocommit off) reads the backlog a page at a time; the transaction is read-only
        connection.setAutoCommit(false);
        connection.setReadOnly(true);
        try (PreparedStatement ps = connection.prepareStatement(OutboxDatabase.sql("cli-validate", settings))) {
            ps.setFetchSize(FETCH_SIZE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    checked++;
                    EventSchema schema = schemas.find(rs.getString("aggregate_type"), rs.getString("event_type"));
                    if (schema == null) {
                        withoutSchema++;
                        continue;
                    }
                    List<Violation> violations = schema.check(rs.getString("payload"));
                    if (violations.isEmpty()) {
                        continue;
                    }
                    failing++;
                    if (rows.size() < listing.rows()) {
                        rows.add(row(rs, schema, violations));
                    }
                }
            }
        } finally {
            connection.rollback();
        }
        if (listing.json()) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("table", settings.table().qualified());
            document.put("schemas_dir", settings.schemasDir());
            document.put("schemas", schemas.size());
            document.put("checked", checked);
            document.put("without_schema", withoutSchema);
            document.put("failing", failing);
            document.put("rows", rows);
            out.println(Json.write(document));
        } else {
            print(rows, schemas, settings, checked, withoutSchema, failing, out);
        }
        return failing == 0 ? OperatorCommands.EXIT_OK : OperatorCommands.EXIT_VALIDATION_FAILED;
    }

    private static Map<String, Object> row(ResultSet rs, EventSchema schema, List<Violation> violations)
            throws SQLException {
        Map<String, Object> row = OutboxDatabase.eventRow(rs);
        row.put("schema", schema.file());
        List<Map<String, String>> errors = new ArrayList<>();
        for (Violation violation : violations) {
            Map<String, String> error = new LinkedHashMap<>();
            error.put("pointer", violation.pointer());
            error.put("message", violation.message());
            errors.add(error);
        }
        row.put("errors", errors);
        return row;
    }

    private static void print(List<Map<String, Object>> rows, EventSchemas schemas, OperatorSettings settings,
            long checked, long withoutSchema, long failing, PrintWriter out) {
        String summary = "Checked " + checked + " PENDING " + (checked == 1 ? "row" : "rows") + " of "
                + settings.table().qualified() + " against " + schemas.size() + " "
                + (schemas.size() == 1 ? "schema" : "schemas") + " in " + settings.schemasDir() + " ("
                + withoutSchema + " without a schema): ";
        if (failing == 0) {
            out.println(summary + "none would fail.");
            return;
        }
        out.println(summary + failing + " would fail"
                + (rows.size() < failing ? ", the oldest " + rows.size() + " shown (--limit N shows more)" : "")
                + ":");
        TextTable table = new TextTable("ID", "KEY", "EVENT_TYPE", "SCHEMA", "ERRORS");
        for (Map<String, Object> row : rows) {
            @SuppressWarnings("unchecked")
            List<Map<String, String>> errors = (List<Map<String, String>>) row.get("errors");
            List<String> described = new ArrayList<>();
            errors.forEach(e -> described.add(Violation.describe(e.get("pointer"), e.get("message"))));
            table.add(row.get("id"), row.get("aggregate_type") + "/" + row.get("aggregate_id"), row.get("event_type"),
                    row.get("schema"), TextTable.oneLine(String.join("; ", described), ERRORS_WIDTH));
        }
        table.print(out, "");
    }
}
