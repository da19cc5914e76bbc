package io.outboxrelay.replay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.TableName;
import io.outboxrelay.sql.OutboxSql;

/**
 * The audit trail of replays in {@code <table>_audit}: one row (and one log line) per replay and per refused attempt,
 * written by the console (which also logs a line for each) and by the replay command alike.
 */
public final class AuditTrail {

    private final String insertSql;
    private final String recentSql;

    public AuditTrail(Database database, TableName table) {
        Map<String, String> values = Map.of("outbox.table", table.qualified());
        this.insertSql = OutboxSql.resolved(database, "audit-record", values);
        this.recentSql = OutboxSql.resolved(database, "audit-recent", values);
    }

    /**
     * Writes the entry in the caller's transaction.
     *
     * @param selection the ids or the filter, as a JSON object
     * @param outcome   "replayed", or "refused: " and why
     */
    public void record(Connection connection, String who, String action, String selection, int count,
            String outcome) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(insertSql)) {
            ps.setString(1, who);
            ps.setString(2, action);
            ps.setString(3, selection);
            ps.setInt(4, count);
            ps.setString(5, outcome);
            ps.executeUpdate();
        }
    }

    /** The latest entries, newest first. */
    public List<Map<String, Object>> recent(Connection connection, int limit) throws SQLException {
        List<Map<String, Object>> entries = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(recentSql)) {
            ps.setInt(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> entry = new LinkedHashMap<>();
                    entry.put("at", rs.getObject("at", java.time.OffsetDateTime.class).toString());
                    entry.put("who", rs.getString("who"));
                    entry.put("action", rs.getString("action"));
                    entry.put("selection", rs.getString("selection"));
                    entry.put("count", rs.getInt("count"));
                    entry.put("outcome", rs.getString("outcome"));
                    entries.add(entry);
                }
            }
        }
        return entries;
    }
}
