package io.outboxrelay.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.settings.Database;

/**
 * The console's summary (GET /outbox/api/summary, and the outbox dev console): the backlog, its oldest event's age,
 * the FAILED events and the keys held back, in total and per destination; the partitions with their owners; the live
 * instances; the events published in the last minute.
 */
public final class OutboxSummary {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConsoleDatabase database;
    private final boolean failedBlocksKey;

    OutboxSummary(ConsoleDatabase database, boolean failedBlocksKey) {
        this.database = database;
        this.failedBlocksKey = failedBlocksKey;
    }

    public Map<String, Object> summary() throws SQLException, JsonProcessingException {
        try (Connection connection = database.connect()) {
            // one snapshot for all the figures; no parallel workers: a summary must not take the cores from a drain
            connection.setAutoCommit(false);
            if (database.database() == Database.POSTGRESQL) {
                try (Statement serial = connection.createStatement()) {
                    serial.execute("SET LOCAL max_parallel_workers_per_gather = 0");
                }
            }
            try {
                return summary(connection);
            } finally {
                connection.rollback();
            }
        }
    }

    private Map<String, Object> summary(Connection connection) throws SQLException, JsonProcessingException {
        Map<String, Long> held = heldKeys(connection);
        List<Map<String, Object>> destinations = new ArrayList<>();
        long pending = 0;
        long failed = 0;
        double oldest = 0;
        try (PreparedStatement ps = database.prepare(connection, "console-destinations");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Map<String, Object> destination = new LinkedHashMap<>();
                String type = rs.getString("aggregate_type");
                destination.put("aggregateType", type);
                destination.put("pending", rs.getLong("pending"));
                destination.put("oldestPendingAgeSeconds", rs.getDouble("oldest_pending_age_seconds"));
                destination.put("failed", rs.getLong("failed"));
                destination.put("heldKeys", held.getOrDefault(type, 0L));
                destinations.add(destination);
                pending += rs.getLong("pending");
                failed += rs.getLong("failed");
                oldest = Math.max(oldest, rs.getDouble("oldest_pending_age_seconds"));
            }
        }
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("pending", pending);
        summary.put("oldestPendingAgeSeconds", oldest);
        summary.put("failed", failed);
        summary.put("heldKeys", held.values().stream().mapToLong(Long::longValue).sum());
        try (PreparedStatement ps = database.prepare(connection, "console-activity");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            summary.put("publishedLastMinute", rs.getLong("published_last_minute"));
            summary.put("destinations", destinations);
            summary.put("partitions", JSON.readValue(rs.getString("partitions"), List.class));
        }
        summary.put("instances", instances(connection));
        return summary;
    }

    private Map<String, Long> heldKeys(Connection connection) throws SQLException {
        Map<String, Long> held = new HashMap<>();
        try (PreparedStatement ps = database.prepare(connection, "console-held-keys")) {
            ps.setBoolean(1, failedBlocksKey);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    held.put(rs.getString("aggregate_type"), rs.getLong("held_keys"));
                }
            }
        }
        return held;
    }

    /** The relay instances, newest heartbeat first (the status command's statement). */
    private List<Map<String, Object>> instances(Connection connection) throws SQLException, JsonProcessingException {
        List<Map<String, Object>> instances = new ArrayList<>();
        try (PreparedStatement ps = database.prepare(connection, "cli-instances"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Map<String, Object> instance = new LinkedHashMap<>();
                instance.put("instanceId", rs.getString("instance_id"));
                instance.put("heartbeatAgeSeconds", rs.getDouble("heartbeat_age_seconds"));
                instance.put("inFlight", rs.getInt("in_flight"));
                instance.put("partitions", JSON.readValue(rs.getString("partitions"), List.class));
                instances.add(instance);
            }
        }
        return instances;
    }
}
