package io.outboxrelay.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;
import org.apache.camel.Message;

/**
 * The console's events: a filtered page of the list (GET /outbox/api/events), keyset-paged by seq, and one event whole
 * (GET /outbox/api/events/{id}). Parameters are checked before any query: a bad one is a 400 naming it.
 */
public final class EventBrowser {

    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;
    private static final Pattern UUID_TEXT = Pattern.compile("\\p{XDigit}{8}(-\\p{XDigit}{4}){3}-\\p{XDigit}{12}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConsoleDatabase database;

    EventBrowser(ConsoleDatabase database) {
        this.database = database;
    }

    public Map<String, Object> list(Exchange exchange) throws SQLException {
        Message in = exchange.getMessage();
        EventFilter filter = EventFilter.of(name -> in.getHeader(name));
        int limit = (int) number(in.getHeader("limit", String.class), "limit", 1, MAX_LIMIT, DEFAULT_LIMIT);
        long after = number(in.getHeader("after", String.class), "after", 1, Long.MAX_VALUE, 0);
        String statement = filter.status().equals("PENDING") ? "console-events-oldest" : "console-events-newest";
        List<Map<String, Object>> events = new ArrayList<>();
        try (Connection connection = database.connect();
                PreparedStatement ps = database.prepare(connection, statement)) {
            int i = filter.bind(ps, 1);
            for (int twice = 0; twice < 2; twice++) {
                if (after == 0) {
                    ps.setNull(i++, Types.BIGINT);
                } else {
                    ps.setLong(i++, after);
                }
            }
            // one more than a page: whether there is a next one
            ps.setInt(i, limit + 1);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    events.add(row(rs));
                }
            }
        }
        String next = null;
        if (events.size() > limit) {
            events.remove(limit);
            next = events.get(limit - 1).get("seq").toString();
        }
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("events", events);
        page.put("next", next);
        return page;
    }

    public Map<String, Object> event(Exchange exchange) throws SQLException, JsonProcessingException {
        UUID id = id(exchange.getMessage().getHeader("id", String.class), "id");
        try (Connection connection = database.connect();
                PreparedStatement ps = database.prepare(connection, "console-event")) {
            ps.setString(1, id.toString());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new ConsoleRefusal(404, "parameter id: no event " + id + " in "
                            + database.table().qualified());
                }
                Map<String, Object> event = row(rs);
                event.put("lastError", rs.getString("last_error"));
                event.put("payload", JSON.readTree(rs.getString("payload")));
                String headers = rs.getString("headers");
                event.put("headers", headers == null ? null : JSON.readTree(headers));
                event.put("holdsKey", rs.getBoolean("holds_key"));
                return event;
            }
        }
    }

    private static Map<String, Object> row(ResultSet rs) throws SQLException {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", rs.getString("id"));
        row.put("seq", rs.getLong("seq"));
        row.put("aggregateType", rs.getString("aggregate_type"));
        row.put("aggregateId", rs.getString("aggregate_id"));
        row.put("eventType", rs.getString("event_type"));
        row.put("status", rs.getString("status"));
        row.put("attempts", rs.getInt("attempts"));
        row.put("createdAt", ConsoleDatabase.time(rs.getObject("created_at", OffsetDateTime.class)));
        row.put("nextAttemptAt", ConsoleDatabase.time(rs.getObject("next_attempt_at", OffsetDateTime.class)));
        row.put("publishedAt", ConsoleDatabase.time(rs.getObject("published_at", OffsetDateTime.class)));
        row.put("lastError", rs.getString("last_error"));
        return row;
    }

    /** An event id written out in full (UUID.fromString would also take "1-2-3-4-5"). */
    static UUID id(Object value, String parameter) {
        if (!(value instanceof String text) || !UUID_TEXT.matcher(text).matches()) {
            throw ConsoleRefusal.badParameter(parameter, "'" + value + "' is not an event id (a UUID)");
        }
        return UUID.fromString(text);
    }

    static long number(String value, String parameter, long min, long max, long absent) {
        if (value == null || value.isEmpty()) {
            return absent;
        }
        long number;
        try {
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ConsoleRefusal.badParameter(parameter, "'" + value + "' is not a whole number");
        }
        if (number < min || number > max) {
            throw ConsoleRefusal.badParameter(parameter, number + " is not between " + min + " and " + max);
        }
        return number;
    }
}
