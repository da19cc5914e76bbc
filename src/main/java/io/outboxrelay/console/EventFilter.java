package io.outboxrelay.console;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The events list's filter (and a filtered replay's selection): status, destination (aggregate type), key, event type
 * and a piece of last_error, each optional but the status. Checked here, so a bad value is a 400 naming it. Bound to
 * sql/console-filter.sql, whose each optional condition takes its value twice.
 */
record EventFilter(String status, String aggregateType, String aggregateId, String eventType, String error) {

    static final List<String> STATUSES = List.of("PENDING", "FAILED", "PUBLISHED");
    static final List<String> NAMES = List.of("status", "aggregateType", "aggregateId", "eventType", "error");
    private static final int LONGEST = 500;

    /** From the request's parameters (query parameters or a JSON body's fields); status defaults to FAILED. */
    static EventFilter of(Function<String, Object> parameter) {
        String status = text(parameter, "status");
        if (status == null) {
            status = "FAILED";
        } else if (!STATUSES.contains(status)) {
            throw ConsoleRefusal.badParameter("status", "'" + status + "' is not one of " + STATUSES);
        }
        return new EventFilter(status, text(parameter, "aggregateType"), text(parameter, "aggregateId"),
                text(parameter, "eventType"), text(parameter, "error"));
    }

    private static String text(Function<String, Object> parameter, String name) {
        Object value = parameter.apply(name);
        if (value == null || value.toString().isEmpty()) {
            return null;
        }
        if (!(value instanceof String text)) {
            throw ConsoleRefusal.badParameter(name, "expected text");
        }
        if (text.length() > LONGEST) {
            throw ConsoleRefusal.badParameter(name, "longer than " + LONGEST + " characters");
        }
        return text;
    }

    /** Binds sql/console-filter.sql's parameters from the given index on; returns the next index. */
    int bind(PreparedStatement ps, int index) throws SQLException {
        ps.setString(index++, status);
        for (String value : new String[] {aggregateType, aggregateId, eventType, error}) {
            ps.setString(index++, value);
            ps.setString(index++, value);
        }
        return index;
    }

    /** The filter as the audit trail and the replay token see it (fixed order, unset fields left out). */
    Map<String, Object> asMap() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("status", status);
        if (aggregateType != null) {
            map.put("aggregateType", aggregateType);
        }
        if (aggregateId != null) {
            map.put("aggregateId", aggregateId);
        }
        if (eventType != null) {
            map.put("eventType", eventType);
        }
        if (error != null) {
            map.put("error", error);
        }
        return map;
    }
}
