package io.outboxrelay.console;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * POST /outbox/api/replay's body: {"ids": [...]} or the list's filter names (status FAILED only), plus "token" when
 * confirming. Checked whole before anything runs: an unknown field, a malformed id or a filter that is not of FAILED
 * events is a 400 naming it.
 */
record ReplayRequest(List<UUID> ids, EventFilter filter, String token) {

    static final int MAX_IDS = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    static ReplayRequest parse(String body) {
        JsonNode root;
        try {
            root = body == null || body.isBlank() ? null : JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw ConsoleRefusal.badParameter("body", "not JSON");
        }
        if (root == null || !root.isObject()) {
            throw ConsoleRefusal.badParameter("body", "expected a JSON object: {\"ids\": [...]} or a filter");
        }
        for (Iterator<String> names = root.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!name.equals("ids") && !name.equals("token") && !EventFilter.NAMES.contains(name)) {
                throw ConsoleRefusal.badParameter(name, "unknown; expected ids, token or " + EventFilter.NAMES);
            }
        }
        JsonNode token = root.get("token");
        if (token != null && !token.isTextual()) {
            throw ConsoleRefusal.badParameter("token", "expected the text of the first call's answer");
        }
        String tokenText = token == null ? null : token.asText();
        JsonNode ids = root.get("ids");
        if (ids != null) {
            if (root.size() > (token == null ? 1 : 2)) {
                throw ConsoleRefusal.badParameter("ids", "either ids or a filter, not both");
            }
            return new ReplayRequest(ids(ids), null, tokenText);
        }
        EventFilter filter = EventFilter.of(name -> {
            JsonNode value = root.get(name);
            return value == null || value.isNull() ? null : value.isTextual() ? value.asText() : value;
        });
        if (!filter.status().equals("FAILED")) {
            throw ConsoleRefusal.badParameter("status", "only FAILED events are replayed, not " + filter.status());
        }
        return new ReplayRequest(null, filter, tokenText);
    }

    private static List<UUID> ids(JsonNode ids) {
        if (!ids.isArray() || ids.isEmpty()) {
            throw ConsoleRefusal.badParameter("ids", "expected a non-empty array of event ids");
        }
        if (ids.size() > MAX_IDS) {
            throw ConsoleRefusal.badParameter("ids", "more than " + MAX_IDS + "; replay by filter instead");
        }
        Set<UUID> sorted = new TreeSet<>();
        for (JsonNode id : ids) {
            sorted.add(EventBrowser.id(id.isTextual() ? id.asText() : id.toString(), "ids"));
        }
        return new ArrayList<>(sorted);
    }

    /** The selection as the token and the audit trail see it: canonical JSON (sorted ids, fixed field order). */
    String selection() {
        try {
            Object value = ids != null ? Map.of("ids", ids.stream().map(UUID::toString).toList()) : filter.asMap();
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
