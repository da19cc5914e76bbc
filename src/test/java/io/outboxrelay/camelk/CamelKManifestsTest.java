package io.outboxrelay.camelk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every manifest under deploy/camel-k is a valid Camel K 2.x resource, and they agree with the relay and each
 * other.
 */
class CamelKManifestsTest {

    @Test
    void everyCamelKManifestMatchesItsCrdSchema() {
        List<String> checked = new ArrayList<>();
        for (Path manifest : CamelKManifests.all()) {
            JsonNode resource = CamelKManifests.read(manifest);
            if (!CamelKManifests.CAMEL_API.equals(resource.path("apiVersion").asText())) {
                assertEquals("v1", resource.path("apiVersion").asText(),
                        manifest + ": only Camel K and core resources");
                continue;
            }
            List<Error> errors = CamelKManifests.validate(resource);
            assertTrue(errors.isEmpty(), manifest + ": " + errors);
            checked.add(resource.path("kind").asText() + " " + resource.path("metadata").path("name").asText());
        }
        checked.sort(null);
        // the relay from sources, the relay as a self-managed image, the inbox action Kamelet, the source Kamelet
        // and its two Pipes
        assertEquals(List.of("Integration outbox-relay", "Integration outbox-relay", "Kamelet postgresql-inbox-action",
                "Kamelet postgresql-outbox-source", "Pipe outbox-to-artemis", "Pipe outbox-to-kafka"), checked);
    }

    /**
     * The relay tells the database by outbox.db.url alone: whatever is deployed from sources (the Integration, the
     * Kamelets) brings both JDBC drivers, at the versions the relay is built and tested with. The self-managed
     * Integration runs the jar, which has them.
     */
    @Test
    void theIntegrationAndTheKameletsBringBothJdbcDriversAtTheRelaysVersions() {
        List<String> drivers = List.of("mvn:org.postgresql:postgresql:" + org.postgresql.util.DriverInfo.DRIVER_VERSION,
                mariaDbDriver());
        List<String> checked = new ArrayList<>();
        for (Path manifest : CamelKManifests.all()) {
            JsonNode resource = CamelKManifests.read(manifest);
            String kind = resource.path("kind").asText();
            JsonNode spec = resource.path("spec");
            if (!(kind.equals("Kamelet") || kind.equals("Integration") && spec.has("sources"))) {
                continue;
            }
            List<String> dependencies = new ArrayList<>();
            spec.path("dependencies").forEach(d -> dependencies.add(d.asText()));
            assertTrue(dependencies.containsAll(drivers), manifest + " lists " + dependencies + ", not all of "
                    + drivers);
            checked.add(kind + " " + resource.path("metadata").path("name").asText());
        }
        checked.sort(null);
        assertEquals(List.of("Integration outbox-relay", "Kamelet postgresql-inbox-action",
                "Kamelet postgresql-outbox-source"), checked);
    }

    /** mvn:group:artifact:version of the MariaDB driver on the test classpath (its jar's Maven properties). */
    private static String mariaDbDriver() {
        Properties pom = new Properties();
        String resource = "/META-INF/maven/org.mariadb.jdbc/mariadb-java-client/pom.properties";
        try (InputStream in = CamelKManifestsTest.class.getResourceAsStream(resource)) {
            assertNotNull(in, resource);
            pom.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "mvn:org.mariadb.jdbc:mariadb-java-client:" + pom.getProperty("version");
    }

    @Test
    void theInboxKameletRunsTheRelaysInboxRecordStatementAndWritesNoSqlOfItsOwn() {
        JsonNode kamelet = CamelKManifests.read(CamelKManifests.DIRECTORY.resolve(
                "kamelets/postgresql-inbox-action.kamelet.yaml"));
        String query = null;
        for (JsonNode step : kamelet.path("spec").path("template").path("from").path("steps")) {
            assertFalse(step.path("to").path("uri").asText().toUpperCase().contains("INSERT"), step.toString());
            if (step.path("setHeader").path("name").asText().equals("CamelSqlQuery")) {
                query = step.path("setHeader").path("method").path("method").asText();
            }
        }
        assertEquals("recordStatement", query, "the statement is InboxSchema's: sql/inbox-record.sql");
    }

    @Test
    void theValidationCatchesMisspeltFieldsAndWrongTypes() {
        ObjectNode integration = (ObjectNode) CamelKManifests.read(
                CamelKManifests.DIRECTORY.resolve("outbox-relay.integration.yaml"));
        ObjectNode health = (ObjectNode) integration.path("spec").path("traits").path("health");
        health.set("livenesProbe", health.remove("livenessProbe"));
        ((ObjectNode) integration.get("spec")).put("replicas", "two");

        Set<String> errors = CamelKManifests.validate(integration).stream()
                .map(Error::toString).collect(Collectors.toSet());
        assertTrue(errors.stream().anyMatch(e -> e.contains("livenesProbe")), errors.toString());
        assertTrue(errors.stream().anyMatch(e -> e.contains("replicas")), errors.toString());
    }

    @Test
    void pipesGiveTheKameletPropertiesItsSchemaAccepts() {
        JsonNode kamelet = CamelKManifests.read(
                CamelKManifests.DIRECTORY.resolve("kamelets/postgresql-outbox-source.kamelet.yaml"));
        assertEquals("source", kamelet.path("metadata").path("labels").path("camel.apache.org/kamelet.type").asText());
        for (String pipe : List.of("outbox-to-kafka", "outbox-to-artemis")) {
            JsonNode source = CamelKManifests.read(CamelKManifests.DIRECTORY.resolve("pipes/" + pipe + ".pipe.yaml"))
                    .path("spec").path("source");
            assertEquals("postgresql-outbox-source", source.path("ref").path("name").asText());
            List<Error> errors = CamelKManifests.validateProperties(kamelet, source.path("properties"));
            assertTrue(errors.isEmpty(), pipe + ": " + errors);
        }
        ObjectNode wrong = CamelKManifests.YAML.createObjectNode().put("databaseUrl", "jdbc:postgresql://db/app")
                .put("batchSize", "many");
        Set<String> errors = CamelKManifests.validateProperties(kamelet, wrong).stream()
                .map(Error::toString).collect(Collectors.toSet());
        assertTrue(errors.stream().anyMatch(e -> e.contains("username")), "username is required: " + errors);
        assertTrue(errors.stream().anyMatch(e -> e.contains("batchSize")), "batchSize is an integer: " + errors);
        // the catalogue's ranges (config.SettingsDefinedOnceTest): 1 to 10000 events, partitions up to 4096
        ObjectNode outOfRange = CamelKManifests.YAML.createObjectNode().put("databaseUrl", "jdbc:postgresql://db/app")
                .put("username", "app").put("batchSize", 10_001).put("partitions", 0);
        Set<String> refused = CamelKManifests.validateProperties(kamelet, outOfRange).stream()
                .map(Error::toString).collect(Collectors.toSet());
        assertTrue(refused.stream().anyMatch(e -> e.contains("batchSize")), "at most 10000: " + refused);
        assertTrue(refused.stream().anyMatch(e -> e.contains("partitions")), "at least 1: " + refused);
        assertEquals(2, refused.size(), refused.toString());
    }

    @Test
    void theIntegrationRunsEveryRouteOfTheBundleAndProbesTheManagementPort() throws IOException {
        JsonNode spec = CamelKManifests.read(CamelKManifests.DIRECTORY.resolve("outbox-relay.integration.yaml"))
                .path("spec");
        Set<String> sources = new TreeSet<>();
        for (JsonNode source : spec.path("sources")) {
            assertEquals(IntegrationSources.ROUTES_CONFIG_MAP, source.path("contentRef").asText());
            assertEquals(source.path("name").asText(), source.path("contentKey").asText());
            sources.add(source.path("contentKey").asText());
        }
        try (Stream<Path> routes = Files.list(IntegrationSources.ROUTES)) {
            // the operator console's routes are loaded only where the console has users (config.UserRoutes): not in
            // the Integration, whose console would otherwise be served to whoever reaches its management port
            assertEquals(routes.map(r -> r.getFileName().toString()).filter(r -> !r.equals("console.camel.yaml"))
                    .collect(Collectors.toCollection(TreeSet::new)),
                    sources, "the Integration's sources are the bundle's routes");
        }

        JsonNode traits = spec.path("traits");
        String managementPort = IntegrationSources.camelTraitProperties(spec).getProperty("camel.management.port");
        assertEquals(traits.path("container").path("port").asText(), managementPort,
                "the health trait probes the container port: it must be the relay's management port");
        assertEquals("/observe/health/live", traits.path("health").path("livenessProbe").asText());
        assertEquals("/observe/health/ready", traits.path("health").path("readinessProbe").asText());
        assertTrue(traits.path("prometheus").path("enabled").asBoolean());
        List<String> dependencies = new ArrayList<>();
        spec.path("dependencies").forEach(d -> dependencies.add(d.asText()));
        assertTrue(dependencies.containsAll(List.of("camel:sql", "camel:kafka")), dependencies.toString());
        assertTrue(dependencies.stream().anyMatch(d -> d.startsWith("mvn:org.postgresql:postgresql:")),
                dependencies.toString());
        assertTrue(dependencies.stream().anyMatch(d -> d.startsWith("mvn:io.outboxrelay:outbox-relay:")),
                dependencies.toString());
    }
}
