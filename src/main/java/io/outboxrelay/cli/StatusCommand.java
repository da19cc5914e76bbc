package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.outboxrelay.settings.OperatorSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code status} command. PENDING, FAILED, the oldest PENDING age and keys held back come from backlog-stats.sql,
 * the relay's own gauge query, so they match /observe/metrics; the rest from cli-status.sql, in the same snapshot;
 * the archive's figures from cli-archive.sql; the relay instances from cli-instances.sql.
 */
@Command(name = "status", description = {"The backlog at a glance: PENDING rows (due now, in flight under a relay's "
        + "lease, backing off before their next attempt), the age of the oldest one, FAILED and PUBLISHED rows, keys "
        + "held back, the archive's rows and its oldest; then the partitions and the relay instances that own them."})
final class StatusCommand extends OutboxCommand {

    @Option(names = "--json", description = "One JSON document on one line instead of the text.")
    boolean json;

    @Override
    int run(Connection connection, OperatorSettings settings, PrintWriter out, PrintWriter err) throws SQLException {
        Map<String, Object> status = read(connection, settings);
        if (json) {
            out.println(Json.write(status));
        } else {
            print(status, settings, out);
        }
        return OperatorCommands.EXIT_OK;
    }

    /** The figures, by their JSON names, in the order they are shown. */
    static Map<String, Object> read(Connection connection, OperatorSettings settings) throws SQLException {
        connection.setAutoCommit(false);
        connection.setReadOnly(true);
        connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("table", settings.table().qualified());
        try (Statement statement = connection.createStatement()) {
            long pending;
            long failed;
            double oldestAge;
            long keysHeldBack;
            try (PreparedStatement backlog = OutboxDatabase.prepareRelayStatement(connection, "backlog-stats",
                    settings); ResultSet rs = backlog.executeQuery()) {
                rs.next();
                pending = rs.getLong("pending");
                failed = rs.getLong("failed");
                oldestAge = rs.getDouble("oldest_pending_age_seconds");
                keysHeldBack = rs.getLong("keys_held_back");
            }
            try (ResultSet rs = statement.executeQuery(OutboxDatabase.sql("cli-status", settings))) {
                rs.next();
                status.put("pending", pending);
                status.put("due", rs.getLong("due"));
                status.put("in_flight", rs.getLong("in_flight"));
                status.put("backing_off", rs.getLong("backing_off"));
                status.put("oldest_pending_age_seconds", Math.round(oldestAge * 1000) / 1000.0);
                status.put("failed", failed);
                status.put("published", rs.getLong("published"));
                status.put("keys_held_back", keysHeldBack);
                status.put("partitions", rs.getLong("partitions"));
                status.put("unowned_partitions", rs.getLong("unowned_partitions"));
            }
            try (ResultSet rs = statement.executeQuery(OutboxDatabase.sql("cli-archive", settings))) {
                rs.next();
                status.put("archived", rs.getLong("archived"));
                status.put("archived_exact", rs.getBoolean("archived_exact"));
                OffsetDateTime oldest = rs.getObject("oldest_archived_at", OffsetDateTime.class);
                status.put("archive_oldest_archived_at", oldest == null ? null : oldest.toInstant().toString());
                status.put("archive_oldest_age_seconds", oldest == null ? null
                        : Math.round(rs.getDouble("oldest_archived_age_seconds") * 1000) / 1000.0);
            }
            List<Map<String, Object>> instances = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery(OutboxDatabase.sql("cli-instances", settings))) {
                while (rs.next()) {
                    Map<String, Object> instance = new LinkedHashMap<>();
                    instance.put("instance_id", rs.getString("instance_id"));
                    instance.put("heartbeat_age_seconds",
                            Math.round(rs.getDouble("heartbeat_age_seconds") * 10) / 10.0);
                    instance.put("in_flight", rs.getLong("in_flight"));
                    instance.put("partitions", Json.integers(rs.getString("partitions")));
                    instances.add(instance);
                }
            }
            status.put("instances", instances);
        }
        connection.commit();
        return status;
    }

    private static void print(Map<String, Object> s, OperatorSettings settings, PrintWriter out) {
        out.println("Outbox " + s.get("table") + " at " + settings.dbUrlForDisplay());
        double age = (double) s.get("oldest_pending_age_seconds");
        new TextTable("", "", "")
                .alignRight(1)
                .add("PENDING", s.get("pending"), "")
                .add("  due now", s.get("due"), "claimable now")
                .add("  in flight", s.get("in_flight"), "of these, claimed by a relay (its last heartbeat)")
                .add("  backing off", s.get("backing_off"), "waiting for their next attempt")
                .add("oldest PENDING age", (long) age, "seconds" + (age >= 60 ? " (" + human(age) + ")" : ""))
                .add("FAILED", s.get("failed"), "")
                .add("PUBLISHED", s.get("published"), "kept for outbox.retention")
                .add("keys held back", s.get("keys_held_back"),
                        "later events wait behind a retried" + (settings.failedBlocksKey() ? " or FAILED" : "")
                                + " event of their key")
                .add("archived", ((boolean) s.get("archived_exact") ? "" : "~") + s.get("archived"),
                        archived(s, settings))
                .printBody(out, "  ");
        out.println();
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> instances = (List<Map<String, Object>>) s.get("instances");
        out.println(s.get("partitions") + " partitions, " + s.get("unowned_partitions") + " without a live owner; "
                + instances.size() + (instances.size() == 1 ? " relay instance" : " relay instances"));
        TextTable owners = new TextTable("instance", "heartbeat", "in flight", "partitions")
                .alignRight(1).alignRight(2);
        instances.forEach(i -> owners.add(i.get("instance_id"), i.get("heartbeat_age_seconds") + " s ago",
                i.get("in_flight"), ranges((List<?>) i.get("partitions"))));
        if (!instances.isEmpty()) {
            owners.print(out, "  ");
        }
        long failed = (long) s.get("failed");
        if (failed > 0) {
            out.println();
            out.println(failed + " FAILED " + (failed == 1 ? "row" : "rows")
                    + ": 'failed' lists them, 'replay --id ID | --key TYPE/ID | --all' retries them.");
        }
    }

    /** What the archived figure means: where the rows are, the oldest, and whether it is an estimate. */
    private static String archived(Map<String, Object> s, OperatorSettings settings) {
        String text = "in " + settings.table().qualified() + "_archive";
        if (s.get("archive_oldest_archived_at") != null) {
            double age = (double) s.get("archive_oldest_age_seconds");
            text += "; the oldest archived " + s.get("archive_oldest_archived_at") + " (" + human(age) + " ago)";
        }
        return (boolean) s.get("archived_exact") ? text : text + "; estimated from the table statistics";
    }

    /** [0, 1, 2, 3, 7, 9, 10] as "0-3, 7, 9-10"; "-" for none. */
    static String ranges(List<?> numbers) {
        if (numbers.isEmpty()) {
            return "-";
        }
        StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < numbers.size()) {
            int first = (Integer) numbers.get(i);
            int last = first;
            while (i + 1 < numbers.size() && (Integer) numbers.get(i + 1) == last + 1) {
                last = (Integer) numbers.get(++i);
            }
            text.append(text.length() == 0 ? "" : ", ").append(first == last ? first : first + "-" + last);
            i++;
        }
        return text.toString();
    }

    /** 7384 seconds as "2h 3m 4s". */
    static String human(double seconds) {
        long s = (long) seconds;
        long days = s / 86_400;
        long hours = s % 86_400 / 3_600;
        long minutes = s % 3_600 / 60;
        StringBuilder text = new StringBuilder();
        if (days > 0) {
            text.append(days).append("d ");
        }
        if (days > 0 || hours > 0) {
            text.append(hours).append("h ");
        }
        return text.append(minutes).append("m ").append(s % 60).append("s").toString();
    }
}
