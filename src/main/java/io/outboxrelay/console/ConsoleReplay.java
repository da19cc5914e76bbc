package io.outboxrelay.console;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.replay.AuditTrail;
import io.outboxrelay.replay.FailedEventsReplay;
import io.outboxrelay.sql.SqlLists;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POST /outbox/api/replay: the first call counts the FAILED events of the selection and answers the count with a
 * token; the second, with the token, replays exactly that set (the replay command's statement, in batches of
 * {@value #BATCH} events, each its own transaction that wakes the relays), or answers 409 when the set changed. Every
 * confirmed replay and every refused call (but an unauthenticated one) is an entry of the audit trail.
 */
public final class ConsoleReplay {

    static final int BATCH = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleReplay.class);

    private final ConsoleDatabase database;
    private final ConsoleAccess access;
    private final FailedEventsReplay replay;
    private final AuditTrail audit;
    private final ReplayTokens tokens = new ReplayTokens();

    ConsoleReplay(ConsoleDatabase database, ConsoleAccess access, AuditTrail audit) {
        this.database = database;
        this.access = access;
        this.replay = new FailedEventsReplay(database.database(), database.table());
        this.audit = audit;
    }

    public Map<String, Object> replay(Exchange exchange) throws SQLException {
        String body = exchange.getMessage().getBody(String.class);
        ReplayRequest request = null;
        try {
            String who = access.operator(exchange);
            request = ReplayRequest.parse(body);
            return request.token() == null ? preview(request) : confirm(who, request);
        } catch (ConsoleRefusal refusal) {
            String who = exchange.getProperty(ConsoleAccess.USER, String.class);
            if (who != null) {
                String selection = request != null ? request.selection() : unparsed(body);
                record(who, selection, 0, "refused " + refusal.getStatus() + ": " + refusal.getMessage());
            }
            throw refusal;
        }
    }

    /** GET /outbox/api/audit: the latest entries of the audit trail, newest first. */
    public Map<String, Object> audit() throws SQLException {
        try (Connection connection = database.connect()) {
            return Map.of("entries", audit.recent(connection, 20));
        }
    }

    private Map<String, Object> preview(ReplayRequest request) throws SQLException {
        Map<UUID, Long> set = failedSet(request, null);
        long maxSeq = set.values().stream().mapToLong(Long::longValue).max().orElse(0);
        return Map.of("count", set.size(), "token", tokens.issue(request.selection(), set.size(), maxSeq));
    }

    private Map<String, Object> confirm(String who, ReplayRequest request) throws SQLException {
        String selection = request.selection();
        ReplayTokens.Confirmed confirmed = tokens.verify(selection, request.token());
        if (confirmed == null) {
            throw new ConsoleRefusal(409, "parameter token: not issued for this selection by this relay; ask for "
                    + "the count again");
        }
        List<UUID> ids = new ArrayList<>(failedSet(request, confirmed.maxSeq()).keySet());
        if (ids.size() != confirmed.count()) {
            throw new ConsoleRefusal(409, "parameter token: the set changed since it was counted (" + confirmed.count()
                    + " then, " + ids.size() + " now); ask for the count again");
        }
        int replayed = 0;
        for (int from = 0; from < ids.size(); from += BATCH) {
            List<UUID> batch = ids.subList(from, Math.min(ids.size(), from + BATCH));
            try (Connection connection = database.connect()) {
                connection.setAutoCommit(false);
                try {
                    replayed += replay.replay(connection, batch, null, null).size();
                    replay.wakeRelays(connection);
                    connection.commit();
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                }
            }
        }
        record(who, selection, replayed, "replayed");
        return Map.of("replayed", replayed);
    }

    /**
     * The selection's events that are FAILED now (id to seq), up to a seq when confirming. Ids: an unknown one is a
     * 404, one that is not FAILED a 409, nothing replayed.
     */
    private Map<UUID, Long> failedSet(ReplayRequest request, Long maxSeq) throws SQLException {
        Map<UUID, Long> set = new TreeMap<>();
        try (Connection connection = database.connect()) {
            if (request.ids() != null) {
                try (PreparedStatement ps = database.prepare(connection, "console-replay-ids")) {
                    ps.setObject(1, SqlLists.uuids(connection, database.database(), request.ids()));
                    try (ResultSet rs = ps.executeQuery()) {
                        Map<UUID, String> statuses = new TreeMap<>();
                        while (rs.next()) {
                            UUID id = UUID.fromString(rs.getString("id"));
                            statuses.put(id, rs.getString("status"));
                            set.put(id, rs.getLong("seq"));
                        }
                        checkIds(request.ids(), statuses);
                    }
                }
                return set;
            }
            try (PreparedStatement ps = database.prepare(connection, "console-replay-set")) {
                int i = request.filter().bind(ps, 1);
                for (int twice = 0; twice < 2; twice++) {
                    if (maxSeq == null) {
                        ps.setNull(i++, Types.BIGINT);
                    } else {
                        ps.setLong(i++, maxSeq);
                    }
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        set.put(UUID.fromString(rs.getString("id")), rs.getLong("seq"));
                    }
                }
            }
        }
        return set;
    }

    private static void checkIds(List<UUID> ids, Map<UUID, String> statuses) {
        for (UUID id : ids) {
            String status = statuses.get(id);
            if (status == null) {
                throw new ConsoleRefusal(404, "parameter ids: no event " + id + "; nothing replayed");
            }
            if (!status.equals("FAILED")) {
                throw new ConsoleRefusal(409, "parameter ids: event " + id + " is " + status
                        + ": only FAILED events are replayed; nothing replayed");
            }
        }
    }

    private void record(String who, String selection, int count, String outcome) throws SQLException {
        try (Connection connection = database.connect()) {
            audit.record(connection, who, "console replay", selection, count, outcome);
        }
        LOG.info("Console replay by {}: {} count={} outcome={}", who, selection, count, outcome);
    }

    private static String unparsed(String body) {
        String text = body == null ? "" : body.length() > 500 ? body.substring(0, 500) : body;
        try {
            return JSON.writeValueAsString(Map.of("unparsed", text));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
