package io.outboxrelay.camelk;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.camel.main.Main;

/**
 * Runs deploy/camel-k/outbox-relay.integration.yaml the way Camel K does: a plain Camel Main (not the relay's jar
 * main) given the Integration's sources, the mounted ConfigMap and Secret, and the camel trait's properties.
 */
final class IntegrationSources {

    /** The ConfigMap the README creates from src/main/resources/routes, named by every source's contentRef. */
    static final String ROUTES_CONFIG_MAP = "outbox-relay-routes";
    static final Path ROUTES = Path.of("src/main/resources/routes");
    /** The ConfigMap outbox-relay-config is created from this file. */
    private static final Path SETTINGS = Path.of("src/main/resources/application.properties");
    private static final Path SECRET = CamelKManifests.DIRECTORY.resolve("outbox-relay-db.secret.yaml");

    private IntegrationSources() {
    }

    static Main main(JsonNode integration) {
        JsonNode spec = integration.path("spec");
        Properties properties = new Properties();
        try (InputStream settings = Files.newInputStream(SETTINGS)) {
            properties.load(settings);
            properties.load(new StringReader(
                    CamelKManifests.read(SECRET).path("stringData").path("db.properties").asText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        properties.putAll(camelTraitProperties(spec));

        List<String> sources = new ArrayList<>();
        for (JsonNode source : spec.path("sources")) {
            sources.add("file:" + ROUTES.resolve(source.path("contentKey").asText()));
        }
        properties.setProperty("camel.main.routes-include-pattern", String.join(",", sources));

        Main main = new Main();
        // Camel K gives the runtime the mounted files, not the application.properties inside a dependency's jar
        main.setDefaultPropertyPlaceholderLocation("false");
        properties.stringPropertyNames().forEach(key -> main.addInitialProperty(key, properties.getProperty(key)));
        return main;
    }

    static Properties camelTraitProperties(JsonNode spec) {
        Properties properties = new Properties();
        for (JsonNode property : spec.path("traits").path("camel").path("properties")) {
            String[] keyValue = property.asText().split("=", 2);
            properties.setProperty(keyValue[0], keyValue[1]);
        }
        return properties;
    }
}
