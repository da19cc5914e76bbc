package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.outboxrelay.replay.AuditTrail;
import io.outboxrelay.replay.FailedEventsReplay;
import io.outboxrelay.settings.OperatorSettings;
import io.outboxrelay.sql.SqlLists;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code replay} command: FAILED rows become PENDING again, attempts 0, due now (cli-replay.sql), in one
 * transaction that also wakes the relays (cli-wake-relays.sql: on PostgreSQL it moves the outbox's sequence and
 * notifies the relays' channel, on MariaDB it moves the replay counter the relays' watch adds to the largest seq), so
 * a running relay claims them at once instead of at its next safety-net poll. PENDING and PUBLISHED rows are never
 * touched.
 *
 * <p>Rows named by id are all replayed or none is: if one of them is not a FAILED row (no such row, or PENDING,
 * or PUBLISHED) the transaction is rolled back, each such id is reported with its status, and the exit code is 3. A
 * key or --all replays the FAILED rows it matches, possibly none (exit 0). --dry-run runs the same statement and rolls
 * it back: it shows exactly what would be replayed and changes nothing. Each replay and each refused one (not a dry
 * run) is an entry of the audit trail ({@code <table>_audit}, the OS user as who), as the console's are.
 */
@Command(name = "replay", description = {"Makes FAILED rows PENDING again (attempts 0, due now) in one transaction and "
        + "wakes the running relays. Never touches PENDING or PUBLISHED rows: if an --id is not a FAILED row, nothing "
        + "is replayed (exit 3)."})
final class ReplayCommand extends OutboxCommand {

    /** Rows listed in the text output; the count is always complete. */
    static final int LISTED = 20;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Selector selector;

    @Option(names = "--dry-run", description = "Shows what would be replayed and changes nothing.")
    boolean dryRun;

    /** Which FAILED rows: exactly one kind of selector. */
    static final class Selector {

        @Option(names = "--id", paramLabel = "UUID", required = true,
                description = "This FAILED row; repeat for more. All of them are replayed, or none is.")
        Set<UUID> ids = new LinkedHashSet<>();

        @ArgGroup(exclusive = true, multiplicity = "1")
        EventKey.Options key;

        @Option(names = "--all", required = true, description = "Every FAILED row.")
        boolean all;
    }

    /** The value of --id: a UUID written out in full (UUID.fromString would also take "1-2-3-4-5"). */
    static UUID id(String id) {
        if (!id.matches("\\p{XDigit}{8}(-\\p{XDigit}{4}){3}-\\p{XDigit}{12}")) {
            throw new TypeConversionException("'" + id + "' is not a UUID");
        }
        return UUID.fromString(id);
    }

    @Override
    int run(Connection connection, OperatorSettings settings, PrintWriter out, PrintWriter err) throws SQLException {
        connection.setAutoCommit(false);
        FailedEventsReplay replay = new FailedEventsReplay(settings.database(), settings.table());
        AuditTrail audit = new AuditTrail(settings.database(), settings.table());
        try {
            Optional<EventKey> key = key();
            List<FailedEventsReplay.Replayed> replayed = replay.replay(connection, selector.ids,
                    key.map(EventKey::aggregateType).orElse(null), key.map(EventKey::aggregateId).orElse(null));
            Set<UUID> refused = new LinkedHashSet<>(selector.ids);
            replayed.forEach(row -> refused.remove(row.id()));
            if (!refused.isEmpty()) {
                connection.rollback();
                Map<UUID, String> statuses = statuses(connection, settings, refused);
                if (!dryRun) {
                    audit.record(connection, who(), "replay", selection(), 0,
                            "refused: " + refused.size() + " of " + selector.ids.size() + " ids not FAILED");
                    connection.commit();
                }
                reportRefused(refused, statuses, settings, err);
                return OperatorCommands.EXIT_REPLAY_REFUSED;
            }
            if (dryRun) {
                connection.rollback();
            } else {
                audit.record(connection, who(), "replay", selection(), replayed.size(), "replayed");
                if (!replayed.isEmpty()) {
                    // last before the commit: the relays' watch sees the sequence move at once
                    replay.wakeRelays(connection);
                }
                connection.commit();
            }
            report(replayed, settings, out);
            return OperatorCommands.EXIT_OK;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
    }

    /** Who replays, for the audit trail: the OS user running the command. */
    private static String who() {
        return System.getProperty("user.name", "unknown");
    }

    /** What was asked for, for the audit trail. */
    private String selection() {
        Map<String, Object> selection = new LinkedHashMap<>();
        if (!selector.ids.isEmpty()) {
            selection.put("ids", selector.ids.stream().map(UUID::toString).toList());
        }
        key().ifPresent(k -> {
            selection.put("aggregateType", k.aggregateType());
            selection.put("aggregateId", k.aggregateId());
        });
        if (selection.isEmpty()) {
            selection.put("all", true);
        }
        return Json.write(selection);
    }

    private static Map<UUID, String> statuses(Connection connection, OperatorSettings settings, Set<UUID> ids)
            throws SQLException {
        Map<UUID, String> statuses = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(OutboxDatabase.sql("cli-row-status", settings))) {
            ps.setObject(1, SqlLists.uuids(connection, settings.database(), ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(UUID.fromString(rs.getString("id")), rs.getString("status"));
                }
            }
        }
        connection.rollback();
        return statuses;
    }

    private void reportRefused(Set<UUID> refused, Map<UUID, String> statuses, OperatorSettings settings,
            PrintWriter err) {
        int ids = selector.ids.size();
        String which = ids == 1 ? "the id is not a FAILED row"
                : refused.size() + " of " + ids + " ids "
                        + (refused.size() == 1 ? "is not a FAILED row" : "are not FAILED rows");
        err.println("outbox-relay: replay refused, nothing changed" + (dryRun ? " (dry run)" : "") + ": " + which
                + " of " + settings.table().qualified());
        TextTable table = new TextTable("", "");
        for (UUID id : refused) {
            String status = statuses.get(id);
            table.add(id, status == null ? "no such row"
                    : status + (status.equals("PENDING") ? " (already waiting to be published)" : "")
                            + ": only FAILED rows are replayed");
        }
        table.printBody(err, "  ");
    }

    private void report(List<FailedEventsReplay.Replayed> replayed, OperatorSettings settings, PrintWriter out) {
        String scope = settings.table().qualified() + key().map(k -> " for key " + k).orElse("");
        if (replayed.isEmpty()) {
            out.println("No FAILED rows in " + scope + ": nothing to replay.");
            return;
        }
        String rows = replayed.size() + " FAILED " + (replayed.size() == 1 ? "row" : "rows");
        out.println(dryRun
                ? "Dry run, nothing changed: would replay " + rows + " of " + scope + "."
                : "Replayed " + rows + " of " + scope
                        + ": PENDING again, attempts 0, due now; running relays were notified.");
        TextTable table = new TextTable("ID", "KEY", "EVENT_TYPE");
        replayed.stream().limit(LISTED)
                .forEach(row -> table.add(row.id(), row.aggregateType() + "/" + row.aggregateId(), row.eventType()));
        table.print(out, "  ");
        if (replayed.size() > LISTED) {
            out.println("  ... and " + (replayed.size() - LISTED) + " more");
        }
    }

    private Optional<EventKey> key() {
        return Optional.ofNullable(selector.key).map(EventKey.Options::key);
    }
}
