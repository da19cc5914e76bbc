package io.outboxrelay.replay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;
import io.outboxrelay.sql.SqlLists;

/**
 * The one replay of FAILED rows, shared by the replay command and the console: sql/&lt;dialect&gt;/cli-replay.sql makes
 * the selected FAILED rows PENDING again (attempts 0, due now; PENDING and PUBLISHED rows are never touched), and
 * cli-wake-relays.sql, in the same transaction, wakes the running relays. The caller owns the transaction.
 */
public final class FailedEventsReplay {

    private final Database database;
    private final String replaySql;
    private final String wakeSql;

    public FailedEventsReplay(Database database, TableName table) {
        this.database = database;
        Map<String, String> values = Map.of("outbox.table", table.qualified());
        this.replaySql = OutboxSql.resolved(database, "cli-replay", values);
        this.wakeSql = OutboxSql.resolved(database, "cli-wake-relays", values);
    }

    /** A replayed row, as the statement returns it. */
    public record Replayed(UUID id, long seq, String aggregateType, String aggregateId, String eventType) {
    }

    /**
     * Replays the FAILED rows among the ids (when not empty), or of one key (aggregate type and id, when not null),
     * or, with neither, every FAILED row; in seq order.
     */
    public List<Replayed> replay(Connection connection, Collection<UUID> ids, String aggregateType,
            String aggregateId) throws SQLException {
        List<Replayed> replayed = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(replaySql)) {
            Object byId = SqlLists.uuids(connection, database, ids);
            ps.setObject(1, byId);
            ps.setObject(2, byId);
            ps.setString(3, aggregateType);
            ps.setString(4, aggregateType);
            ps.setString(5, aggregateId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    replayed.add(new Replayed(UUID.fromString(rs.getString("id")), rs.getLong("seq"),
                            rs.getString("aggregate_type"), rs.getString("aggregate_id"), rs.getString("event_type")));
                }
            }
        }
        replayed.sort(Comparator.comparingLong(Replayed::seq));
        return replayed;
    }

    /** Wakes the running relays at the commit of this transaction (a replay inserts nothing they would see). */
    public void wakeRelays(Connection connection) throws SQLException {
        try (PreparedStatement wake = connection.prepareStatement(wakeSql)) {
            wake.execute();
        }
    }
}
