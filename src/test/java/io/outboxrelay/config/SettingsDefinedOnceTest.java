package io.outboxrelay.config;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Each setting's default is written once, in application.properties: docs/settings.md lists every outbox and inbox key
 * with that default, and the outbox Kamelet's parameters are exactly those KameletRelay maps, with the same defaults.
 * Fails on any drift between them.
 */
class SettingsDefinedOnceTest {

    /** A row of docs/settings.md's table: | `key` | `default` or empty ... | meaning |. */
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z][a-z0-9.-]+)` \\| (`([^`]*)`|empty)[^|]*\\|",
            Pattern.MULTILINE);

    @Test
    void theSettingsPageListsEveryKeyWithItsDefault() throws Exception {
        Map<String, String> defaults = relayDefaults();
        Map<String, String> documented = new TreeMap<>();
        Matcher row = ROW.matcher(Files.readString(Path.of("docs/settings.md")));
        while (row.find()) {
            documented.put(row.group(1), row.group(3) == null ? "" : row.group(3));
        }
        Map<String, String> documentedRelayKeys = new TreeMap<>(documented);
        documentedRelayKeys.keySet().removeIf(key -> !key.startsWith("outbox.") && !key.startsWith("inbox."));
        assertEquals(defaults, documentedRelayKeys);
    }

    @Test
    void theOutboxKameletsParametersAreTheSettingsKameletRelayMapsWithTheirDefaults() throws Exception {
        JsonNode kamelet = new ObjectMapper(new YAMLFactory()).readTree(
                Path.of("deploy/camel-k/kamelets/postgresql-outbox-source.kamelet.yaml").toFile());
        Map<String, String> defaults = relayDefaults();
        Map<String, String> expected = new TreeMap<>();
        Map<String, String> declared = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> properties = kamelet.path("spec").path("definition")
                .path("properties").fields(); properties.hasNext();) {
            Map.Entry<String, JsonNode> property = properties.next();
            String key = KameletRelay.SETTINGS_OF_PARAMETERS.get(property.getKey());
            assertNotNull(key, "the Kamelet's " + property.getKey() + " sets no setting");
            JsonNode value = property.getValue().get("default");
            if (value != null) {
                declared.put(key, normalised(KameletRelay.setting(property.getKey(), value.asText())));
                expected.put(key, normalised(defaults.get(key)));
            }
        }
        assertEquals(KameletRelay.SETTINGS_OF_PARAMETERS.size(), kamelet.path("spec").path("definition")
                .path("properties").size(), "every mapped parameter is a property of the Kamelet");
        assertEquals(expected, declared, "the Kamelet's defaults are the relay's");
        Map<String, String> passed = new HashMap<>();
        kamelet.path("spec").path("template").path("beans").get(0).path("properties").fields()
                .forEachRemaining(e -> passed.put(e.getKey().replaceAll("^parameters\\[(.*)]$", "$1"),
                        e.getValue().asText()));
        assertEquals(KameletRelay.SETTINGS_OF_PARAMETERS.keySet(), passed.keySet(),
                "the Kamelet hands every parameter to KameletRelay");
    }

    @Test
    void kameletDurationsAreSeconds() {
        assertEquals("PT6S", KameletRelay.setting("leaseSeconds", "6"));
        assertEquals("2000", KameletRelay.setting("batchSize", "2000"));
    }

    /** Durations compared as durations (PT600S is PT10M). */
    private static String normalised(String value) {
        return value.startsWith("P") ? Duration.parse(value).toString() : value;
    }

    /** The outbox and inbox keys of application.properties, with their defaults. */
    private static Map<String, String> relayDefaults() throws Exception {
        Properties properties = new Properties();
        try (InputStream in = SettingsDefinedOnceTest.class.getClassLoader()
                .getResourceAsStream("application.properties")) {
            properties.load(in);
        }
        Map<String, String> defaults = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith("outbox.") || key.startsWith("inbox.")) {
                defaults.put(key, properties.getProperty(key));
            }
        }
        return defaults;
    }
}
