package io.outboxrelay.observability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static io.outboxrelay.observability.ObservabilityKit.ALERT_RULES;
import static io.outboxrelay.observability.ObservabilityKit.ALERT_TESTS;
import static io.outboxrelay.observability.ObservabilityKit.PROMETHEUS_CONFIG;
import static io.outboxrelay.observability.ObservabilityKit.PROMETHEUS_DIR;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The alert rules in deploy/observability/prometheus are valid, their promtool unit tests pass, the unit tests cover
 * both sides of every alert, and they notice a changed threshold, "for" duration or grouping.
 */
@Tag("services")
class AlertRulesTest {

    private static final YAMLMapper YAML = new YAMLMapper();

    private Path promtool;

    @BeforeEach
    void findPromtool() {
        promtool = ObservabilityKit.executable("promtool").orElse(null);
    }

    private void requirePromtool() {
        assertNotNull(promtool, "promtool not found: apt-get install prometheus (.ci/run installs it)");
    }

    @Test
    void rulesPassPromtoolCheck() {
        requirePromtool();
        assertSucceeds(PROMETHEUS_DIR, promtool.toString(), "check", "rules", ALERT_RULES.getFileName().toString());
    }

    @Test
    void exampleScrapeConfigIsValidAndLoadsTheRules() {
        requirePromtool();
        ObservabilityKit.Result result = assertSucceeds(PROMETHEUS_DIR, promtool.toString(), "check", "config",
                PROMETHEUS_CONFIG.getFileName().toString());
        // promtool check config also checks the rule files the config names
        assertTrue(result.output().contains(ALERT_RULES.getFileName().toString()), result.output());
    }

    @Test
    void unitTestsOfTheRulesPass() {
        requirePromtool();
        assertSucceeds(PROMETHEUS_DIR, promtool.toString(), "test", "rules", ALERT_TESTS.getFileName().toString());
    }

    /** Every alert and every severity it has is tested firing, and every alert is tested not firing. */
    @Test
    void unitTestsCoverBothSidesOfEveryAlert() throws IOException {
        Set<String> alerts = new TreeSet<>();
        Set<String> alertSeverities = new TreeSet<>();
        for (JsonNode group : YAML.readTree(ALERT_RULES.toFile()).get("groups")) {
            for (JsonNode rule : group.get("rules")) {
                String alert = rule.path("alert").asText();
                alerts.add(alert);
                alertSeverities.add(alert + "/" + rule.path("labels").path("severity").asText());
            }
        }
        assertEquals(Set.of("OutboxBacklogHigh", "OutboxFailedEvents", "OutboxPendingEventTooOld", "OutboxRelayAbsent",
                "OutboxRelayDown"), alerts);

        JsonNode tests = YAML.readTree(ALERT_TESTS.toFile());
        assertEquals(ALERT_RULES.getFileName().toString(), tests.get("rule_files").get(0).asText());
        Set<String> testedSilent = new TreeSet<>();
        Set<String> testedFiring = new TreeSet<>();
        for (JsonNode test : tests.get("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                String alert = check.get("alertname").asText();
                if (check.path("exp_alerts").isEmpty()) {
                    testedSilent.add(alert);
                }
                for (JsonNode expected : check.path("exp_alerts")) {
                    testedFiring.add(alert + "/" + expected.path("exp_labels").path("severity").asText());
                }
            }
        }
        assertEquals(alerts, testedSilent, "alerts with a not-firing case");
        assertEquals(alertSeverities, testedFiring, "alert severities with a firing case");
    }

    /**
     * The unit tests have teeth: each change below to the rules (a threshold moved by a little, a shorter "for", one
     * alert per replica instead of per table, absent() over every job) makes promtool test rules fail.
     */
    @Test
    void unitTestsFailWhenARuleChanges() throws IOException {
        requirePromtool();
        String age = "(outbox_oldest_pending_age_seconds{job=\"outbox-relay\"})";
        String backlog = "(outbox_backlog_events{job=\"outbox-relay\"})";
        String failed = "(outbox_failed_events{job=\"outbox-relay\"})";
        List<String[]> mutations = List.of(
                new String[] {age + " > 60\n", age + " > 58\n"},
                new String[] {age + " > 60\n", age + " > 62\n"},
                new String[] {age + " > 600\n", age + " > 598\n"},
                new String[] {age + " > 600\n", age + " > 602\n"},
                new String[] {backlog + " > 1000\n", backlog + " > 998\n"},
                new String[] {backlog + " > 1000\n", backlog + " > 1002\n"},
                new String[] {backlog + " > 10000\n", backlog + " > 9998\n"},
                new String[] {backlog + " > 10000\n", backlog + " > 10002\n"},
                new String[] {backlog + " > 1000\n        for: 5m", backlog + " > 1000\n        for: 3m"},
                new String[] {failed + " > 0\n", failed + " > 1\n"},
                new String[] {failed + " > 0\n", failed + " >= 0\n"},
                new String[] {"expr: up{job=\"outbox-relay\"} == 0\n        for: 1m",
                        "expr: up{job=\"outbox-relay\"} == 0\n        for: 0m"},
                new String[] {"expr: up{job=\"outbox-relay\"} == 0\n", "expr: up{job=\"outbox-relay\"} < 0\n"},
                new String[] {"expr: absent(up{job=\"outbox-relay\"})\n", "expr: absent(up)\n"},
                new String[] {"max by (job, table) " + age + " > 60\n",
                        "max by (job, table, instance) " + age + " > 60\n"},
                new String[] {"max by (job, table) " + age + " > 600\n", "min by (job, table) " + age + " > 600\n"},
                new String[] {"max by (job, table) " + backlog + " > 10000\n",
                        "max by (job, table, instance) " + backlog + " > 10000\n"},
                new String[] {"max by (job, table) " + failed, "max by (job) " + failed});

        String rules = Files.readString(ALERT_RULES);
        String unitTests = Files.readString(ALERT_TESTS);
        Path dir = Files.createTempDirectory("outbox-alert-mutants");
        try {
            List<String> survivors = new ArrayList<>();
            for (String[] mutation : mutations) {
                int at = rules.indexOf(mutation[0]);
                assertTrue(at >= 0 && rules.indexOf(mutation[0], at + 1) < 0,
                        "the rules file no longer contains exactly one '" + mutation[0] + "': update this test");
                Files.writeString(dir.resolve(ALERT_RULES.getFileName()), rules.replace(mutation[0], mutation[1]));
                Files.writeString(dir.resolve(ALERT_TESTS.getFileName()), unitTests);
                // the mutant is still valid PromQL: only the unit tests can catch it
                assertSucceeds(dir, promtool.toString(), "check", "rules", ALERT_RULES.getFileName().toString());
                ObservabilityKit.Result result = ObservabilityKit.run(dir,
                        List.of(promtool.toString(), "test", "rules", ALERT_TESTS.getFileName().toString()));
                if (result.exitCode() == 0) {
                    survivors.add(mutation[0].strip() + "  ->  " + mutation[1].strip());
                }
            }
            assertTrue(survivors.isEmpty(),
                    "the unit tests did not notice these rule changes:\n" + String.join("\n", survivors));
        } finally {
            ObservabilityKit.deleteRecursively(dir);
        }
    }

    private static ObservabilityKit.Result assertSucceeds(Path dir, String... command) {
        ObservabilityKit.Result result = ObservabilityKit.run(dir, List.of(command));
        assertEquals(0, result.exitCode(),
                () -> String.join(" ", command) + " (in " + dir + ") failed:\n" + result.output());
        return result;
    }
}
