package io.outboxrelay.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * /observe/metrics shows the relay's meters with real values; /observe/health includes the database; without console
 * users /outbox/** is 404.
 */
@Tag("services")
class OperatingEndpointsTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void metricsAndHealthReflectTheOutbox() throws Exception {
        String type = "ops" + UUID.randomUUID().toString().substring(0, 8);
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayInstance relay = RelayInstance.start(RelayInstance.reportingSettings(db))) {
                for (int i = 0; i < 5; i++) {
                    db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload) "
                            + "VALUES (?, ?, 'E', '{}')",
                            type, "k" + i);
                }
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers) "
                        + "VALUES (?, 'bad', 'E', '{}', '\"not an object\"')", type);
                // a pending row that is not due for an hour: backlog and oldest age
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, created_at, "
                        + "next_attempt_at) VALUES (?, 'later', 'E', '{}', now() - interval '90 seconds', "
                        + "now() + interval '1 hour')", type);

                String base = "http://127.0.0.1:" + relay.managementPort();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    String metrics = get(base + "/observe/metrics");
                    assertTrue(metrics.contains("\noutbox_events_published_total 5.0\n"), metrics);
                    assertTrue(metrics.contains("\noutbox_events_failed_total 1.0\n"), metrics);
                    // the five good events and the bad one were claimed (a retried event counts again)
                    assertTrue(metrics.lines().anyMatch(l -> l.startsWith("outbox_events_claimed_total ")
                            && Double.parseDouble(l.split(" ")[1]) >= 6), metrics);
                    assertTrue(metrics.lines().anyMatch(l -> l.startsWith("outbox_claims_total ")
                            && Double.parseDouble(l.split(" ")[1]) >= 1), metrics);
                    assertTrue(metrics.contains("\noutbox_commit_to_ack_seconds_count 5\n"), metrics);
                    assertTrue(metrics.contains("\noutbox_backlog_events 1.0\n"), metrics);
                    assertTrue(metrics.contains("\noutbox_failed_events 1.0\n"), metrics);
                    assertTrue(metrics.lines().anyMatch(l -> l.startsWith("outbox_oldest_pending_age_seconds ")
                            && Double.parseDouble(l.split(" ")[1]) >= 90), metrics);
                });

                JsonNode health = new ObjectMapper().readTree(get(base + "/observe/health"));
                assertEquals("UP", health.get("status").asText(), health.toString());
                boolean databaseUp = false;
                for (JsonNode check : health.get("checks")) {
                    databaseUp |= "database".equals(check.get("name").asText())
                            && "UP".equals(check.get("status").asText());
                }
                assertTrue(databaseUp, health.toString());
                assertTrue(get(base + "/observe/health/ready").contains("database"));
                // no console users configured: the console is not served at all
                for (String path : new String[] {"/outbox/", "/outbox/api/summary", "/outbox/api/openapi.json"}) {
                    assertEquals(404, http.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                            HttpResponse.BodyHandlers.discarding()).statusCode(), path);
                }
            }
        }
    }

    private String get(String url) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }
}
