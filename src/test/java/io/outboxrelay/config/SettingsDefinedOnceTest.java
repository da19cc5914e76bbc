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
import io.outboxrelay.settings.Setting;
import io.outboxrelay.settings.SettingsCatalogue;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each setting is defined once, in the settings catalogue (settings.SettingsCatalogue: key, type, default, range,
 * choices, Kamelet parameter): application.properties gives each its default, docs/settings.md lists each with its
 * default, range and choices, and the outbox Kamelet's parameters are exactly the catalogue's, with the same defaults.
 * Fails on any drift between them.
 */
class SettingsDefinedOnceTest {

    /** A row of docs/settings.md's table: | `key` | `default` or empty ... | meaning |. */
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z][a-z0-9.-]+)` \\| (`([^`]*)`|empty)[^|]*\\|",
            Pattern.MULTILINE);

    @Test
    void applicationPropertiesGivesEverySettingOfTheCatalogueItsDefault() throws Exception {
        Map<String, String> catalogue = new TreeMap<>();
        SettingsCatalogue.ALL.forEach(setting -> catalogue.put(setting.key(), setting.defaultValue()));
        Map<String, String> relayKeys = new TreeMap<>(catalogue);
        relayKeys.keySet().removeIf(key -> !key.startsWith("outbox.") && !key.startsWith("inbox."));
        assertEquals(relayKeys, relayDefaults(), "every outbox and inbox key is in the catalogue, with its default");
        assertEquals(catalogue.get("camel.component.kafka.brokers"),
                properties().getProperty("camel.component.kafka.brokers"));
    }

    @Test
    void theSettingsPageListsEverySettingWithItsDefaultAndRange() throws Exception {
        String page = Files.readString(Path.of("docs/settings.md"));
        Map<String, String> documented = new TreeMap<>();
        Map<String, String> rows = new HashMap<>();
        Matcher row = ROW.matcher(page);
        while (row.find()) {
            documented.put(row.group(1), row.group(3) == null ? "" : row.group(3));
            int end = page.indexOf('\n', row.start());
            rows.put(row.group(1), page.substring(row.start(), end < 0 ? page.length() : end));
        }
        for (Setting setting : SettingsCatalogue.ALL) {
            assertEquals(setting.defaultValue(), documented.get(setting.key()), setting.key() + "'s default");
            if (setting.type() == Setting.Type.INTEGER) {
                String range = setting.max() == Integer.MAX_VALUE ? "at least " + (long) setting.min()
                        : (long) setting.min() + "–" + (long) setting.max();
                assertTrue(rows.get(setting.key()).contains(range), setting.key() + ": range " + range + " in "
                        + rows.get(setting.key()));
            }
            for (String choice : setting.choices()) {
                assertTrue(rows.get(setting.key()).contains("`" + choice + "`"), setting.key() + ": " + choice);
            }
        }
        documented.keySet().removeIf(key -> !key.startsWith("outbox.") && !key.startsWith("inbox."));
        assertEquals(relayDefaults().keySet(), documented.keySet(), "no other outbox or inbox key documented");
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

    private static Properties properties() throws Exception {
        Properties properties = new Properties();
        try (InputStream in = SettingsDefinedOnceTest.class.getClassLoader()
                .getResourceAsStream("application.properties")) {
            properties.load(in);
        }
        return properties;
    }

    /** The outbox and inbox keys of application.properties, with their defaults. */
    private static Map<String, String> relayDefaults() throws Exception {
        Properties properties = properties();
        Map<String, String> defaults = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (key.startsWith("outbox.") || key.startsWith("inbox.")) {
                defaults.put(key, properties.getProperty(key));
            }
        }
        return defaults;
    }
}
