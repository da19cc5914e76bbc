package io.outboxrelay.console;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.settings.Database;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static io.outboxrelay.console.ConsoleClient.OPERATOR;
import static io.outboxrelay.console.ConsoleClient.OPERATOR_PASSWORD;
import static io.outboxrelay.console.ConsoleClient.VIEWER;
import static io.outboxrelay.console.ConsoleClient.VIEWER_PASSWORD;
import static io.outboxrelay.console.ConsoleClient.basic;
import static io.outboxrelay.console.ConsoleClient.json;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The console's API on a running relay, the real PostgreSQL (then MariaDB: the same API) and Kafka: access (401, 403,
 * same origin), filters, keyset paging across 10,000 FAILED events, bad input (400 naming the parameter, 404, 409,
 * nothing changed), replay of exactly the confirmed set (a concurrent insert is not replayed, a stale token is
 * refused; the running relay woken), the audit trail, the OpenAPI document and the dev console.
 */
@Tag("services")
@ParameterizedClass(name = "{0}")
@EnumSource(Database.class)
class ConsoleApiTest {

    private static final int PAGED = 10_000;
    private static TestDatabase db;
    private static RelayInstance relay;
    private static ConsoleClient console;

    /** The database of this run of the class (also given to its lifecycle methods). */
    @Parameter
    Database database;

    @BeforeParameterizedClassInvocation
    static void start(Database database) throws Exception {
        db = TestDatabase.create(database);
        Map<String, String> settings = ConsoleClient.relaySettings(db);
        settings.put("camel.main.dev-console-enabled", "true");
        settings.put("camel.management.dev-console-enabled", "true");
        relay = RelayInstance.start(settings);
        console = new ConsoleClient(relay.managementPort());
        // 10,000 FAILED events of one destination, as the relay leaves them, over 100 keys
        String columns = "INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                + "last_error) ";
        String error = "'org.apache.kafka.common.errors.RecordTooLargeException: too large'";
        if (database == Database.MARIADB) {
            // a hundred times a hundred: a recursive CTE stops at max_recursive_iterations (1000 by default)
            db.update(columns + "WITH RECURSIVE n (i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99) "
                    + "SELECT 'paged', concat('k', b.i), 'Paged', JSON_OBJECT('i', a.i * 100 + b.i + 1), 'FAILED', "
                    + "10, " + error + " FROM n a CROSS JOIN n b");
            assertEquals(PAGED, db.count("SELECT count(*) FROM outbox WHERE aggregate_type = 'paged'"));
        } else {
            db.update(columns + "SELECT 'paged', 'k' || (i % 100), 'Paged', jsonb_build_object('i', i), 'FAILED', 10, "
                    + error + " FROM generate_series(1, ?) i", PAGED);
        }
    }

    @AfterParameterizedClassInvocation
    static void stop() {
        relay.close();
        db.close();
    }

    private static UUID failed(String type, String key, String eventType, String error) {
        UUID id = UUID.randomUUID();
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers, status, "
                + "attempts, last_error) "
                + "VALUES (?, ?, ?, ?, '{\"total\": 12.5}', '{\"tenant\": \"t-1\"}', 'FAILED', 3, ?)",
                id, type, key, eventType, error);
        return id;
    }

    private static String status(UUID id) {
        return (String) db.query("SELECT status FROM outbox WHERE id = ?", id).get(0).get("status");
    }

    private static List<Map<String, Object>> audit(String selectionContains) {
        return db.query("SELECT who, count, outcome FROM outbox_audit WHERE " + db.text("selection")
                + " LIKE ? ORDER BY id",
                "%" + selectionContains + "%");
    }

    @Test
    void aMissingOrWrongCredentialIs401AndTheRolesAreKeptApart() {
        HttpResponse<String> none = console.get("/outbox/api/summary", null);
        assertEquals(401, none.statusCode());
        assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic realm="));
        assertTrue(json(none).get("message").asText().contains("Authorization"), none.body());
        assertEquals(401, console.get("/outbox/api/summary", basic(VIEWER, "wrong")).statusCode());
        assertEquals(401, console.get("/outbox/", basic("nobody", VIEWER_PASSWORD)).statusCode());
        assertEquals(401, console.get("/outbox/api/summary", "Bearer abc").statusCode());

        HttpResponse<String> page = console.get("/outbox/", basic(VIEWER, VIEWER_PASSWORD));
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(page.body().contains("<title>Outbox console</title>"));
        assertFalse(page.headers().map().containsKey("authorization"), "credentials are not echoed");
        assertEquals(200, console.get("/outbox/console.js", basic(OPERATOR, OPERATOR_PASSWORD)).statusCode());
        assertEquals(404, console.get("/outbox/secrets.txt", basic(VIEWER, VIEWER_PASSWORD)).statusCode());

        // a viewer reads but does not replay; the refusal is audited
        UUID id = failed("roles", "r-1", "Placed", "boom");
        HttpResponse<String> refused = console.replay(VIEWER, VIEWER_PASSWORD, "{\"ids\": [\"" + id + "\"]}");
        assertEquals(403, refused.statusCode(), refused.body());
        assertEquals("FAILED", status(id));
        List<Map<String, Object>> audit = audit(id.toString());
        assertEquals(1, audit.size(), audit.toString());
        assertEquals(VIEWER, audit.get(0).get("who"));
        assertTrue(audit.get(0).get("outcome").toString().startsWith("refused 403: user vera is a viewer"));
        // a wrong credential is not audited: nobody to name
        assertEquals(401, console.replay(OPERATOR, "guess", "{\"ids\": [\"" + id + "\"]}").statusCode());
        assertEquals(1, audit(id.toString()).size());
    }

    @Test
    void aReplayFromAnotherSiteIsRefused() {
        UUID id = failed("origin", "o-1", "Placed", "boom");
        String body = "{\"ids\": [\"" + id + "\"]}";
        HttpRequest.Builder post = HttpRequest.newBuilder(URI.create(console.base() + "/outbox/api/replay"))
                .header("Authorization", basic(OPERATOR, OPERATOR_PASSWORD))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        // a cross-site form post: no custom header
        HttpResponse<String> form = console.send(post.header("Origin", "http://evil.example")
                .header("Content-Type", "application/x-www-form-urlencoded").build());
        assertEquals(403, form.statusCode(), form.body());
        assertTrue(json(form).get("message").asText().contains("X-Outbox-Console"), form.body());
        // a script of another site that sends the header too (browsers would ask CORS first): its Origin
        HttpResponse<String> script = console.send(post.header("X-Outbox-Console", "1").build());
        assertEquals(403, script.statusCode(), script.body());
        assertTrue(json(script).get("message").asText().contains("Origin"), script.body());
        assertEquals("FAILED", status(id));
        assertEquals(2, audit(id.toString()).size());
    }

    @Test
    void filtersSelectExactlyTheirEvents() {
        UUID a = failed("filters", "f-1", "Placed", "java.net.SocketTimeoutException: Read timed out");
        UUID b = failed("filters", "f-2", "Cancelled", "RecordTooLargeException: 2000000 bytes");
        UUID c = failed("filters", "f-1", "Cancelled", "RecordTooLargeException: 3000000 bytes");
        assertEquals(List.of(c.toString(), b.toString(), a.toString()), ids("aggregateType=filters"));
        assertEquals(List.of(c.toString(), a.toString()), ids("aggregateType=filters&aggregateId=f-1"));
        assertEquals(List.of(c.toString(), b.toString()), ids("aggregateType=filters&eventType=Cancelled"));
        assertEquals(List.of(a.toString()), ids("aggregateType=filters&error=read%20TIMED"));
        assertEquals(List.of(), ids("aggregateType=filters&status=PENDING"));

        JsonNode event = console.read("/outbox/api/events/" + a);
        assertEquals("Placed", event.get("eventType").asText());
        assertEquals(12.5, event.get("payload").get("total").asDouble());
        assertEquals("t-1", event.get("headers").get("tenant").asText());
        assertEquals("java.net.SocketTimeoutException: Read timed out", event.get("lastError").asText());
        assertEquals(3, event.get("attempts").asInt());
        assertFalse(event.get("holdsKey").asBoolean());
    }

    private static List<String> ids(String query) {
        List<String> ids = new ArrayList<>();
        console.read("/outbox/api/events?" + query).get("events").forEach(e -> ids.add(e.get("id").asText()));
        return ids;
    }

    @Test
    void pagesWalkTenThousandFailedEventsNewestFirstByKeyset() {
        Set<String> seen = new HashSet<>();
        long previous = Long.MAX_VALUE;
        String after = "";
        int pages = 0;
        do {
            JsonNode page = console.read("/outbox/api/events?status=FAILED&aggregateType=paged&limit=500" + after);
            for (JsonNode event : page.get("events")) {
                long seq = event.get("seq").asLong();
                assertTrue(seq < previous, "newest first, no repeats");
                previous = seq;
                assertTrue(seen.add(event.get("id").asText()));
            }
            pages++;
            after = page.get("next").isNull() ? null : "&after=" + page.get("next").asText();
        } while (after != null);
        assertEquals(PAGED, seen.size());
        assertEquals(PAGED / 500, pages);
        JsonNode first = console.read("/outbox/api/events?aggregateType=paged");
        assertEquals(EventBrowser.DEFAULT_LIMIT, first.get("events").size(), "FAILED and 50 by default");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "/outbox/api/events?status=BROKEN      | 400 | parameter status",
        "/outbox/api/events?limit=501          | 400 | parameter limit",
        "/outbox/api/events?limit=0            | 400 | parameter limit",
        "/outbox/api/events?after=seven        | 400 | parameter after",
        "/outbox/api/events/12345              | 400 | parameter id",
        "/outbox/api/events/0b8c7c36-3b7e-4a43-9d6b-1f0e2f4c9a11 | 404 | parameter id: no event",
    })
    void badReadsAreAnsweredNamingTheParameter(String path, int status, String message) {
        HttpResponse<String> response = console.get(path, basic(VIEWER, VIEWER_PASSWORD));
        assertEquals(status, response.statusCode(), response.body());
        assertTrue(json(response).get("message").asText().startsWith(message), response.body());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "not json                                   | 400 | parameter body",
        "[1, 2]                                     | 400 | parameter body",
        "{\"colour\": \"red\"}                      | 400 | parameter colour",
        "{\"ids\": [\"not-an-id\"]}                 | 400 | parameter ids",
        "{\"ids\": []}                              | 400 | parameter ids",
        "{\"status\": \"PENDING\"}                  | 400 | parameter status",
        "{\"status\": \"LOST\"}                     | 400 | parameter status",
        "{\"aggregateType\": 7}                     | 400 | parameter aggregateType",
        "{\"ids\": [\"0b8c7c36-3b7e-4a43-9d6b-1f0e2f4c9a11\"]} | 404 | parameter ids: no event",
    })
    void badReplaysChangeNothingAndAreAudited(String body, int status, String message) {
        long failedBefore = db.count("SELECT count(*) FROM outbox WHERE status = 'FAILED'");
        long auditBefore = db.count("SELECT count(*) FROM outbox_audit");
        HttpResponse<String> response = console.replay(body);
        assertEquals(status, response.statusCode(), response.body());
        assertTrue(json(response).get("message").asText().startsWith(message), response.body());
        assertEquals(failedBefore, db.count("SELECT count(*) FROM outbox WHERE status = 'FAILED'"));
        assertEquals(auditBefore + 1, db.count("SELECT count(*) FROM outbox_audit"));
    }

    @Test
    void replayingAnEventThatIsNotFailedChangesNothing() {
        UUID failed = failed("notfailed", "n-1", "Placed", "boom");
        UUID pending = UUID.randomUUID();
        // PENDING, retried later: a relay may be sending it; a replay must not touch it
        db.update("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, attempts, "
                + "next_attempt_at) VALUES (?, 'notfailed', 'n-2', 'Placed', '{}', 2, " + db.nowPlus(3600) + ")",
                pending);
        HttpResponse<String> response = console.replay("{\"ids\": [\"" + failed + "\", \"" + pending + "\"]}");
        assertEquals(409, response.statusCode(), response.body());
        assertTrue(json(response).get("message").asText().contains(pending + " is PENDING"), response.body());
        assertEquals("FAILED", status(failed));
        assertEquals(2, db.count("SELECT attempts FROM outbox WHERE id = ?", pending));
    }

    @Test
    void aFilteredReplayTakesExactlyTheConfirmedSetAndPublishesIt() {
        List<UUID> set = List.of(failed("confirmed", "c-1", "Placed", "boom"),
                failed("confirmed", "c-2", "Placed", "boom"), failed("confirmed", "c-3", "Placed", "boom"));
        String filter = "\"status\": \"FAILED\", \"aggregateType\": \"confirmed\"";
        JsonNode preview = json(console.replay("{" + filter + "}"));
        assertEquals(3, preview.get("count").asInt(), preview.toString());
        set.forEach(id -> assertEquals("FAILED", status(id), "the first call changes nothing"));

        // an event of the same filter fails between the count and the confirmation: not part of what was confirmed
        UUID late = failed("confirmed", "c-4", "Placed", "boom");
        HttpResponse<String> confirmed = console.replay("{" + filter + ", \"token\": \""
                + preview.get("token").asText() + "\"}");
        assertEquals(200, confirmed.statusCode(), confirmed.body());
        assertEquals(3, json(confirmed).get("replayed").asInt());
        assertEquals("FAILED", status(late));
        // the running relay was woken and published them (Kafka)
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> set.forEach(id -> assertEquals("PUBLISHED", status(id))));
        List<Map<String, Object>> audit = audit("\"confirmed\"");
        assertEquals(Map.of("who", OPERATOR, "count", 3, "outcome", "replayed"), audit.get(audit.size() - 1));
        JsonNode entries = console.read("/outbox/api/audit").get("entries");
        assertEquals("replayed", entries.get(0).get("outcome").asText());
    }

    @Test
    void aStaleOrForeignTokenIsRefusedAndNothingIsReplayed() {
        UUID one = failed("stale", "s-1", "Placed", "boom");
        UUID two = failed("stale", "s-2", "Placed", "boom");
        String filter = "\"aggregateType\": \"stale\"";
        String token = json(console.replay("{" + filter + "}")).get("token").asText();
        // someone else deals with one of them meanwhile
        db.update("UPDATE outbox SET status = 'PUBLISHED', published_at = now() WHERE id = ?", one);
        HttpResponse<String> stale = console.replay("{" + filter + ", \"token\": \"" + token + "\"}");
        assertEquals(409, stale.statusCode(), stale.body());
        assertTrue(json(stale).get("message").asText().startsWith("parameter token: the set changed"), stale.body());
        assertEquals("FAILED", status(two));

        // a token of another selection, or one edited by hand
        String other = json(console.replay("{\"aggregateType\": \"roles\"}")).get("token").asText();
        assertEquals(409, console.replay("{" + filter + ", \"token\": \"" + other + "\"}").statusCode());
        String fresh = json(console.replay("{" + filter + "}")).get("token").asText();
        String forged = fresh.replaceFirst("^\\d+\\.1\\.", fresh.split("\\.")[0] + ".5.");
        assertEquals(409, console.replay("{" + filter + ", \"token\": \"" + forged + "\"}").statusCode());
        assertEquals("FAILED", status(two));
        assertEquals(3, audit("\"stale\"").stream().filter(a -> a.get("outcome").toString().startsWith("refused 409"))
                .count());
    }

    @Test
    void summaryOpenApiAndDevConsoleShowTheOutbox() {
        // the summary served is the latest one computed (at the relay's start, then at most every second here):
        // it shows the rows inserted since once a request finds it older than that
        JsonNode summary = await().atMost(Duration.ofSeconds(30)).until(() -> console.read("/outbox/api/summary"),
                s -> s.get("failed").asLong() >= PAGED && s.get("instances").size() == 1);
        assertTrue(summary.get("computeMillis").asLong() >= 0, summary.toString());
        JsonNode paged = null;
        for (JsonNode destination : summary.get("destinations")) {
            if (destination.get("aggregateType").asText().equals("paged")) {
                paged = destination;
            }
        }
        assertEquals(PAGED, paged.get("failed").asLong(), summary.toString());
        assertEquals(32, summary.get("partitions").size());
        assertTrue(summary.get("partitions").get(0).has("leaseUntil"), summary.toString());
        assertEquals(1, summary.get("instances").size());
        assertTrue(summary.get("instances").get(0).get("partitions").size() > 0, summary.toString());
        assertNull(summary.get("password"));

        HttpResponse<String> openapi = console.get("/outbox/api/openapi.json", null);
        assertEquals(200, openapi.statusCode());
        assertTrue(json(openapi).get("paths").has("/outbox/api/events/{id}"), openapi.body());

        HttpResponse<String> dev = console.send(HttpRequest.newBuilder(URI.create(console.base() + "/q/dev/outbox"))
                .header("Accept", "application/json").build());
        assertEquals(200, dev.statusCode(), dev.body());
        assertTrue(json(dev).toString().contains("\"destinations\""), dev.body());
    }
}
