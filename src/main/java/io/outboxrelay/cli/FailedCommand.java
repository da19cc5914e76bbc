package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.outboxrelay.settings.OperatorSettings;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The {@code failed} command: the FAILED rows, oldest first (seq), with what an operator needs to decide on a replay.
 */
@Command(name = "failed", description = {"FAILED rows, oldest first: id, key, event type, attempts, created_at, the "
        + "first line of last_error (all of it with --json)."})
final class FailedCommand extends OutboxCommand {

    private static final int ERROR_WIDTH = 100;

    @ArgGroup(exclusive = true)
    EventKey.Options keyOptions;

    @Mixin
    Listing listing;

    @Override
    int run(Connection connection, OperatorSettings settings, PrintWriter out, PrintWriter err) throws SQLException {
        Optional<EventKey> key = key();
        List<Map<String, Object>> rows = new ArrayList<>();
        long total = 0;
        try (PreparedStatement ps = connection.prepareStatement(OutboxDatabase.sql("cli-failed", settings))) {
            ps.setBoolean(1, key.isEmpty());
            ps.setString(2, key.map(EventKey::aggregateType).orElse(null));
            ps.setString(3, key.map(EventKey::aggregateId).orElse(null));
            ps.setInt(4, listing.rows());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    total = rs.getLong("total");
                    Map<String, Object> row = OutboxDatabase.eventRow(rs);
                    row.put("attempts", rs.getInt("attempts"));
                    row.put("created_at", instant(rs.getObject("created_at", OffsetDateTime.class)));
                    row.put("next_attempt_at", instant(rs.getObject("next_attempt_at", OffsetDateTime.class)));
                    row.put("last_error", rs.getString("last_error"));
                    rows.add(row);
                }
            }
        }
        if (listing.json()) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("table", settings.table().qualified());
            key.ifPresent(k -> document.put("key", Map.of("aggregate_type", k.aggregateType(),
                    "aggregate_id", k.aggregateId())));
            document.put("total", total);
            document.put("rows", rows);
            out.println(Json.write(document));
        } else {
            print(rows, total, settings, out);
        }
        return OperatorCommands.EXIT_OK;
    }

    private Optional<EventKey> key() {
        return Optional.ofNullable(keyOptions).map(EventKey.Options::key);
    }

    private void print(List<Map<String, Object>> rows, long total, OperatorSettings settings, PrintWriter out) {
        String scope = settings.table().qualified() + key().map(k -> " for key " + k).orElse("");
        if (rows.isEmpty()) {
            out.println("No FAILED rows in " + scope + ".");
            return;
        }
        out.println(total + " FAILED " + (total == 1 ? "row" : "rows") + " in " + scope
                + (rows.size() < total ? ", the oldest " + rows.size() + " shown (--limit N shows more)" : "")
                + ", oldest first:");
        TextTable table = new TextTable("ID", "KEY", "EVENT_TYPE", "ATTEMPTS", "CREATED_AT", "LAST_ERROR")
                .alignRight(3);
        for (Map<String, Object> row : rows) {
            String created = (String) row.get("created_at");
            table.add(row.get("id"), row.get("aggregate_type") + "/" + row.get("aggregate_id"), row.get("event_type"),
                    row.get("attempts"),
                    OffsetDateTime.parse(created).truncatedTo(ChronoUnit.SECONDS).toInstant(),
                    TextTable.oneLine((String) row.get("last_error"), ERROR_WIDTH));
        }
        table.print(out, "");
    }

    /** RFC 3339 in UTC, as the ce_time header has it. */
    static String instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant().toString();
    }
}
