package io.outboxrelay.observability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static io.outboxrelay.observability.ObservabilityKit.ALERT_RULES;
import static io.outboxrelay.observability.ObservabilityKit.DASHBOARD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Grafana dashboard has a panel for every required topic, and every one of its queries returns data from a real
 * Prometheus scraping a real relay; the alert rules load and evaluate against the same data.
 */
@Tag("services")
class DashboardQueriesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** $name, ${name} or ${name:format} */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\$(\\w+)");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*(\\w+)\\)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A required topic: some panel queries it (expr matches), and every panel that does shows it in this unit. */
    private record Topic(String name, Pattern expr, String unit) {
        Topic(String name, String regex, String unit) {
            this(name, Pattern.compile(regex), unit);
        }
    }

    private static final List<Topic> REQUIRED = List.of(
            new Topic("throughput: published", "rate\\(outbox_events_published_total\\b", "events/s"),
            new Topic("throughput: claimed", "rate\\(outbox_events_claimed_total\\b", "events/s"),
            new Topic("throughput: publish failures", "rate\\(outbox_publish_failures_total\\b", "events/s"),
            new Topic("throughput: events that became FAILED", "rate\\(outbox_events_failed_total\\b", "events/s"),
            new Topic("backlog", "\\boutbox_backlog_events\\b", "short"),
            new Topic("oldest pending age", "\\boutbox_oldest_pending_age_seconds\\b", "s"),
            new Topic("FAILED events", "\\boutbox_failed_events\\b", "short"),
            new Topic("commit-to-ack p50",
                    "histogram_quantile\\(0\\.5,\\s*sum by \\(le\\) \\(rate\\(outbox_commit_to_ack_seconds_bucket\\b",
                    "s"),
            new Topic("commit-to-ack p95",
                    "histogram_quantile\\(0\\.95,\\s*sum by \\(le\\) \\(rate\\(outbox_commit_to_ack_seconds_bucket\\b",
                    "s"),
            new Topic("commit-to-ack p99",
                    "histogram_quantile\\(0\\.99,\\s*sum by \\(le\\) \\(rate\\(outbox_commit_to_ack_seconds_bucket\\b",
                    "s"),
            new Topic("keys held back", "\\boutbox_keys_held_back\\b", "short"),
            new Topic("events claimed per instance",
                    "sum by \\(instance\\) \\(rate\\(outbox_events_claimed_total\\b", "events/s"),
            new Topic("claims per instance", "sum by \\(instance\\) \\(rate\\(outbox_claims_total\\b", "claims/s"),
            new Topic("partitions owned per instance", "sum by \\(instance\\) \\(outbox_partitions_owned\\b", "short"),
            new Topic("live instances", "\\boutbox_instances_live\\b", "short"),
            new Topic("partitions taken", "\\boutbox_partitions_taken_total\\b", "short"),
            new Topic("partitions given up", "\\boutbox_partitions_given_up_total\\b", "short"));

    @Test
    void dashboardHasAPanelForEveryRequiredTopic() throws IOException {
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        assertTrue(dashboard.path("schemaVersion").asInt() >= 36, "schemaVersion " + dashboard.path("schemaVersion"));
        Map<String, JsonNode> variables = new LinkedHashMap<>();
        dashboard.path("templating").path("list").forEach(v -> variables.put(v.path("name").asText(), v));
        assertEquals("datasource", variables.getOrDefault("datasource", JSON.nullNode()).path("type").asText(),
                "a datasource variable named datasource");
        assertEquals("prometheus", variables.get("datasource").path("query").asText());
        assertEquals("query", variables.getOrDefault("instance", JSON.nullNode()).path("type").asText(),
                "a query variable named instance");

        List<JsonNode> panels = panels(dashboard);
        for (JsonNode panel : panels) {
            String title = panel.path("title").asText();
            assertEquals("${datasource}", panel.path("datasource").path("uid").asText(), title);
            assertFalse(panel.path("targets").isEmpty(), title + " has no query");
            for (JsonNode target : panel.path("targets")) {
                assertEquals("${datasource}", target.path("datasource").path("uid").asText(), title);
                assertTrue(target.path("expr").asText().contains("instance=~\"$instance\""),
                        title + ": follows the instance variable: " + target.path("expr").asText());
            }
        }
        List<String> problems = new ArrayList<>();
        for (Topic topic : REQUIRED) {
            List<JsonNode> showing = panels.stream()
                    .filter(p -> exprs(p).stream().anyMatch(e -> topic.expr().matcher(e).find()))
                    .toList();
            if (showing.isEmpty()) {
                problems.add(topic.name() + ": no panel queries " + topic.expr());
            }
            for (JsonNode panel : showing) {
                String unit = panel.path("fieldConfig").path("defaults").path("unit").asText();
                if (!topic.unit().equals(unit)) {
                    problems.add(topic.name() + ": panel '" + panel.path("title").asText() + "' has unit '" + unit
                            + "', expected '" + topic.unit() + "'");
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void everyDashboardQueryReturnsDataFromARealRelay() throws Exception {
        Path prometheusBinary = ObservabilityKit.executable("prometheus", "/usr/bin/prometheus").orElse(null);
        assertNotNull(prometheusBinary, "prometheus not found: apt-get install prometheus (.ci/run installs it)");

        String type = "obs" + UUID.randomUUID().toString().substring(0, 8);
        Path work = Files.createTempDirectory("outbox-prometheus");
        Process prometheus = null;
        try (TestDatabase db = TestDatabase.create()) {
            try (RelayInstance relay = RelayInstance.start(RelayInstance.reportingSettings(db))) {
                // one event that ends FAILED (headers not an object, one attempt allowed), one PENDING event that is
                // not due for an hour and 700 s old (backlog and oldest age), and a steady stream of good events so
                // that rates and latency quantiles have data
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers) "
                        + "VALUES (?, 'bad', 'E', '{}', '\"not an object\"')", type);
                db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, created_at, "
                        + "next_attempt_at) VALUES (?, 'later', 'E', '{}', now() - interval '700 seconds', "
                        + "now() + interval '1 hour')", type);
                try (ContinuousWriter writer = new ContinuousWriter(db, type, 50, 20, 2_000)) {
                    String target = "127.0.0.1:" + relay.managementPort();
                    int port = freePort();
                    Path config = work.resolve("prometheus.yml");
                    Files.writeString(config, prometheusConfig(target));
                    prometheus = new ProcessBuilder(prometheusBinary.toString(),
                            "--config.file=" + config,
                            "--storage.tsdb.path=" + work.resolve("data"),
                            "--web.listen-address=127.0.0.1:" + port)
                            .redirectErrorStream(true)
                            .redirectOutput(work.resolve("prometheus.log").toFile())
                            .start();
                    String api = "http://127.0.0.1:" + port;
                    Process server = prometheus;
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                        assertTrue(server.isAlive(), () -> "prometheus exited:\n" + log(work));
                        assertEquals(200, status(api + "/-/ready"));
                    });

                    Map<String, String> variables = resolveVariables(api, target);
                    List<String> queries = new ArrayList<>();
                    for (JsonNode panel : panels(JSON.readTree(DASHBOARD.toFile()))) {
                        for (String expr : exprs(panel)) {
                            String query = expand(expr, variables);
                            assertFalse(query.contains("$"), "unresolved Grafana variable in " + query);
                            queries.add(query);
                        }
                    }
                    assertTrue(queries.size() >= REQUIRED.size(), "queries: " + queries);

                    // the relay's own metric families, as it exposes them: the dashboard shows each of them
                    Set<String> families = new TreeSet<>();
                    get("http://" + target + "/observe/metrics").lines()
                            .filter(l -> l.startsWith("# TYPE outbox_"))
                            .forEach(l -> families.add(l.split(" ")[2]));
                    assertFalse(families.isEmpty());
                    for (String family : families) {
                        assertTrue(queries.stream().anyMatch(q -> q.contains(family)),
                                "no dashboard query shows " + family + " (the relay's families: " + families + ")");
                    }

                    await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                        List<String> empty = new ArrayList<>();
                        for (String query : queries) {
                            JsonNode answer = JSON.readTree(get(api + "/api/v1/query?query=" + encode(query)));
                            assertEquals("success", answer.path("status").asText(), query + ": " + answer);
                            boolean finite = false;
                            for (JsonNode series : answer.path("data").path("result")) {
                                double value = Double.parseDouble(series.path("value").path(1).asText("NaN"));
                                finite |= Double.isFinite(value);
                            }
                            if (!finite) {
                                empty.add(query + "  ->  " + answer.path("data").path("result"));
                            }
                        }
                        assertTrue(empty.isEmpty(), "queries without a finite value:\n" + String.join("\n", empty));
                    });

                    assertAlertRulesEvaluate(api);
                }
            }
        } finally {
            if (prometheus != null) {
                prometheus.destroy();
                if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                    prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            ObservabilityKit.deleteRecursively(work);
        }
    }

    /**
     * The rules file loads, every rule evaluates without error against the relay's real series, and exactly the
     * alerts this outbox calls for are active: the FAILED event and the 700 s old pending event, nothing else (the
     * relay is up, the backlog is small).
     */
    private void assertAlertRulesEvaluate(String api) {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode groups = JSON.readTree(get(api + "/api/v1/rules")).path("data").path("groups");
            List<String> rules = new ArrayList<>();
            for (JsonNode group : groups) {
                for (JsonNode rule : group.path("rules")) {
                    assertEquals("ok", rule.path("health").asText(), rule.toString());
                    rules.add(rule.path("name").asText());
                }
            }
            assertEquals(7, rules.size(), "rules loaded: " + rules);

            Set<String> active = new TreeSet<>();
            for (JsonNode alert : JSON.readTree(get(api + "/api/v1/alerts")).path("data").path("alerts")) {
                active.add(alert.path("labels").path("alertname").asText() + "/"
                        + alert.path("labels").path("severity").asText());
            }
            assertEquals(Set.of("OutboxFailedEvents/warning", "OutboxPendingEventTooOld/warning",
                    "OutboxPendingEventTooOld/critical"), active);
        });
    }

    /**
     * Resolves the dashboard's variables as Grafana would: label_values(selector, label) through Prometheus' label
     * values API, in order; a variable with "All" takes its allValue (the instance variable: .*).
     */
    private Map<String, String> resolveVariables(String api, String relayTarget) throws Exception {
        Map<String, String> variables = new LinkedHashMap<>();
        for (JsonNode variable : JSON.readTree(DASHBOARD.toFile()).path("templating").path("list")) {
            if (!"query".equals(variable.path("type").asText())) {
                continue;
            }
            String name = variable.path("name").asText();
            String definition = variable.path("query").isTextual() ? variable.path("query").asText()
                    : variable.path("query").path("query").asText();
            Matcher m = LABEL_VALUES.matcher(expand(definition, variables));
            assertTrue(m.matches(), name + ": " + definition);
            String url = api + "/api/v1/label/" + m.group(2) + "/values?match[]=" + encode(m.group(1));
            List<String> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                values.clear();
                JSON.readTree(get(url)).path("data").forEach(v -> values.add(v.asText()));
                assertFalse(values.isEmpty(), name + ": no values from " + url);
            });
            if ("instance".equals(name)) {
                assertTrue(values.contains(relayTarget), "instance values " + values);
            }
            variables.put(name, variable.path("includeAll").asBoolean()
                    ? variable.path("allValue").asText() : values.get(0));
        }
        assertEquals("outbox-relay", variables.get("job"));
        return variables;
    }

    private static String expand(String expr, Map<String, String> variables) {
        Map<String, String> all = new LinkedHashMap<>(variables);
        all.put("__rate_interval", "1m");
        all.put("__interval", "15s");
        all.put("__range", "5m");
        Matcher m = VARIABLE.matcher(expr);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            m.appendReplacement(out, Matcher.quoteReplacement(all.getOrDefault(name, m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String prometheusConfig(String target) {
        return """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files:
                  - %s
                scrape_configs:
                  - job_name: outbox-relay
                    metrics_path: /observe/metrics
                    static_configs:
                      - targets: ["%s"]
                        labels:
                          table: outbox
                """.formatted(ALERT_RULES.toAbsolutePath(), target);
    }

    /** Every panel with queries, also those inside collapsed rows. */
    private static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            if ("row".equals(panel.path("type").asText())) {
                panel.path("panels").forEach(out::add);
            } else {
                out.add(panel);
            }
        }
        return out;
    }

    private static List<String> exprs(JsonNode panel) {
        List<String> out = new ArrayList<>();
        panel.path("targets").forEach(t -> out.add(t.path("expr").asText()));
        return out;
    }

    private String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.body();
    }

    private int status(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String log(Path work) {
        try {
            return Files.readString(work.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
