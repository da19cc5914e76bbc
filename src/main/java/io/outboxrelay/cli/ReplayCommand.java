package io.outboxrelay.cli;

import java.io.PrintStream;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import io.outboxrelay.settings.OperatorSettings;

/**
 * {@code replay (--id UUID [--id UUID ...] | --key TYPE/ID | --aggregate-type T --aggregate-id I | --all)
 * [--dry-run]}: FAILED rows become PENDING again, attempts 0, due now, without a lease (cli-replay.sql), in one transaction that
 * also notifies the relays' channel, so a running relay claims them at once instead of at its next safety-net poll.
 * PENDING and PUBLISHED rows are never touched.
 *
 * <p>Rows named by id are all replayed or none is: if one of them is not a FAILED row (no such row, or PENDING,
 * or PUBLISHED) the transaction is rolled back, each such id is reported with its status, and the exit code is 3. A
 * key or --all replays the FAILED rows it matches, possibly none (exit 0). --dry-run runs the same statement and rolls
 * it back: it shows exactly what would be replayed and changes nothing.
 */
record ReplayCommand(Set<UUID> ids, Optional<EventKey> key, boolean all, boolean dryRun) implements OperatorCommand {

    static final String USAGE =
            "replay (--id UUID [--id UUID ...] | --key TYPE/ID | --aggregate-type T --aggregate-id I | --all) [--dry-run]";
    /** Rows listed in the text output; the count is always complete. */
    static final int LISTED = 20;

    static ReplayCommand parse(List<String> tokens) throws CommandException {
        Arguments arguments = Arguments.parse("replay", tokens, Set.of("--all", "--dry-run"),
                Set.of("--id", EventKey.KEY, EventKey.TYPE, EventKey.ID));
        Set<UUID> ids = new LinkedHashSet<>();
        for (String id : arguments.all("--id")) {
            try {
                if (id.length() != 36) {
                    throw new IllegalArgumentException(id);
                }
                ids.add(UUID.fromString(id));
            } catch (IllegalArgumentException e) {
                throw CommandException.usage("replay: --id '" + id + "' is not a UUID");
            }
        }
        Optional<EventKey> key = EventKey.from(arguments);
        boolean all = arguments.has("--all");
        int selectors = (ids.isEmpty() ? 0 : 1) + (key.isPresent() ? 1 : 0) + (all ? 1 : 0);
        if (selectors == 0) {
            throw CommandException.usage("replay: say which FAILED rows: --id UUID, --key TYPE/ID or --all");
        }
        if (selectors > 1) {
            throw CommandException.usage(all
                    ? "replay: --all replays every FAILED row and takes no --id or --key"
                    : "replay: give --id or --key, not both");
        }
        return new ReplayCommand(Collections.unmodifiableSet(ids), key, all, arguments.has("--dry-run"));
    }

    @Override
    public int run(Connection connection, OperatorSettings settings, PrintStream out, PrintStream err)
            throws SQLException {
        connection.setAutoCommit(false);
        try {
            List<Replayed> replayed = replay(connection, settings);
            Set<UUID> refused = new LinkedHashSet<>(ids);
            replayed.forEach(row -> refused.remove(row.id()));
            if (!refused.isEmpty()) {
                connection.rollback();
                reportRefused(refused, statuses(connection, settings, refused), settings, err);
                return OperatorCommands.EXIT_REPLAY_REFUSED;
            }
            if (dryRun || replayed.isEmpty()) {
                connection.rollback();
            } else {
                String wakeRelays = OutboxDatabase.sql("cli-wake-relays", settings);
                try (PreparedStatement wake = connection.prepareStatement(wakeRelays)) {
                    // the channel the insert trigger (migration V2) notifies and the relays LISTEN on
                    wake.setString(1, settings.table().qualified());
                    wake.executeQuery().close();
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

    private List<Replayed> replay(Connection connection, OperatorSettings settings) throws SQLException {
        List<Replayed> replayed = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(OutboxDatabase.sql("cli-replay", settings))) {
            // the selector: ids, or one key, or neither (--all)
            Array byId = all || key.isPresent() ? null : connection.createArrayOf("uuid", ids.toArray());
            ps.setArray(1, byId);
            ps.setArray(2, byId);
            String aggregateType = key.map(EventKey::aggregateType).orElse(null);
            ps.setString(3, aggregateType);
            ps.setString(4, aggregateType);
            ps.setString(5, key.map(EventKey::aggregateId).orElse(null));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    replayed.add(new Replayed(rs.getObject("id", UUID.class), rs.getLong("seq"),
                            rs.getString("aggregate_type") + "/" + rs.getString("aggregate_id"),
                            rs.getString("event_type")));
                }
            }
        }
        replayed.sort(Comparator.comparingLong(Replayed::seq));
        return replayed;
    }

    private static Map<UUID, String> statuses(Connection connection, OperatorSettings settings, Set<UUID> ids)
            throws SQLException {
        Map<UUID, String> statuses = new HashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(OutboxDatabase.sql("cli-row-status", settings))) {
            ps.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    statuses.put(rs.getObject("id", UUID.class), rs.getString("status"));
                }
            }
        }
        connection.rollback();
        return statuses;
    }

    private void reportRefused(Set<UUID> refused, Map<UUID, String> statuses, OperatorSettings settings,
            PrintStream err) {
        String which = ids.size() == 1 ? "the id is not a FAILED row"
                : refused.size() + " of " + ids.size() + " ids "
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

    private void report(List<Replayed> replayed, OperatorSettings settings, PrintStream out) {
        String scope = settings.table().qualified() + key.map(k -> " for key " + k).orElse("");
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
        replayed.stream().limit(LISTED).forEach(row -> table.add(row.id(), row.key(), row.eventType()));
        table.print(out, "  ");
        if (replayed.size() > LISTED) {
            out.println("  ... and " + (replayed.size() - LISTED) + " more");
        }
    }

    private record Replayed(UUID id, long seq, String key, String eventType) {
    }
}
