package io.outboxrelay.config;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.outboxrelay.settings.Database;
import io.outboxrelay.settings.Setting;
import io.outboxrelay.settings.SettingsCatalogue;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each setting is defined once, in the settings catalogue (settings.SettingsCatalogue: key, type, default, range,
 * choices, description, Kamelet parameter): application.properties gives each its default, docs/settings.md lists each
 * with its default, range and choices, the outbox Kamelet's parameters are exactly the catalogue's, with the same
 * defaults and ranges, and each of the three describes a setting in words that open with the catalogue's. Fails on any
 * drift between them.
 */
class SettingsDefinedOnceTest {

    /** A row of docs/settings.md's table: | `key` | `default` or empty ... | meaning |. */
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z][a-z0-9.-]+)` \\| (`([^`]*)`|empty)[^|]*\\|",
            Pattern.MULTILINE);
    /** A row of docs/settings.md's table, its meaning in group 2. */
    private static final Pattern MEANING = Pattern.compile("^\\| `([a-z][a-z0-9.-]+)` \\| [^|]* \\| (.*) \\|$",
            Pattern.MULTILINE);
    private static final Path KAMELET = Path.of("deploy/camel-k/kamelets/postgresql-outbox-source.kamelet.yaml");

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
            SettingsCatalogue.databaseDefaults(setting).forEach((database, value) -> assertTrue(
                    rows.get(setting.key()).contains(value + " on " + (database == Database.MARIADB ? "MariaDB"
                            : "PostgreSQL")),
                    setting.key() + ": its default on " + database + " in " + rows.get(setting.key())));
        }
        documented.keySet().removeIf(key -> !key.startsWith("outbox.") && !key.startsWith("inbox."));
        assertEquals(relayDefaults().keySet(), documented.keySet(), "no other outbox or inbox key documented");
    }

    @Test
    void theOutboxKameletsParametersAreTheSettingsKameletRelayMapsWithTheirDefaults() throws Exception {
        JsonNode kamelet = new ObjectMapper(new YAMLFactory()).readTree(KAMELET.toFile());
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

    /**
     * No derived key: every outbox or inbox key the routes and the SQL read through {{...}} is a setting of the
     * catalogue (a value derived from settings is a RelaySettings method, read as {{bean:relaySettings.NAME}}).
     */
    @Test
    void theRoutesAndTheSqlReadOnlyTheCataloguesKeys() throws Exception {
        Pattern placeholder = Pattern.compile("\\{\\{((outbox|inbox)\\.[a-z0-9.-]+)}}");
        Map<String, String> readBy = new TreeMap<>();
        for (String folder : List.of("src/main/resources/routes", "src/main/resources/sql")) {
            try (var files = Files.walk(Path.of(folder))) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    Matcher key = placeholder.matcher(Files.readString(file));
                    while (key.find()) {
                        readBy.put(key.group(1), file.toString());
                    }
                }
            }
        }
        readBy.keySet().removeAll(SettingsCatalogue.ALL.stream().map(Setting::key).toList());
        assertEquals(Map.of(), readBy, "keys read by routes or SQL that the catalogue does not define");
    }

    /**
     * The catalogue is the source of what a setting does: its description's words open the setting's comment in
     * application.properties, its row's meaning in docs/settings.md and its Kamelet parameter's description, word for
     * word; each place goes on with what its readers need. Only the first letter's case may differ (a sentence starts
     * there), and docs/settings.md's backticks are formatting, not words.
     */
    @Test
    void everyDescriptionOpensWithTheCataloguesWords() throws Exception {
        Map<String, String> comments = propertyComments();
        Map<String, String> meanings = new HashMap<>();
        Matcher row = MEANING.matcher(Files.readString(Path.of("docs/settings.md")));
        while (row.find()) {
            meanings.put(row.group(1), row.group(2).replace("`", ""));
        }
        JsonNode parameters = kameletParameters();
        List<String> drifted = new ArrayList<>();
        for (Setting setting : SettingsCatalogue.ALL) {
            expectOpening(drifted, "application.properties", setting, comments.get(setting.key()));
            expectOpening(drifted, "docs/settings.md", setting, meanings.get(setting.key()));
            if (setting.kameletParameter() != null) {
                expectOpening(drifted, "the Kamelet's " + setting.kameletParameter(), setting,
                        parameters.path(setting.kameletParameter()).path("description").textValue());
            }
        }
        assertEquals(List.of(), drifted, "descriptions that do not open with the catalogue's words");
    }

    /**
     * The Kamelet's integer parameters carry the catalogue's range as minimum and maximum (strings: the Camel K CRD
     * types both as text, camelk.CamelKManifests reads them as numbers); a duration given in seconds must be positive.
     */
    @Test
    void theKameletsIntegerParametersCarryTheCataloguesRange() throws Exception {
        JsonNode parameters = kameletParameters();
        int integers = 0;
        for (Setting setting : SettingsCatalogue.ALL) {
            JsonNode parameter = parameters.path(String.valueOf(setting.kameletParameter()));
            if (setting.kameletParameter() == null || !"integer".equals(parameter.path("type").asText())) {
                continue;
            }
            integers++;
            String name = setting.kameletParameter();
            assertTrue(parameter.path("minimum").isTextual(), name + ": the CRD's minimum is a string");
            if (setting.type() == Setting.Type.INTEGER) {
                assertEquals(Long.toString((long) setting.min()), parameter.path("minimum").asText(), name);
                assertEquals(Long.toString((long) setting.max()), parameter.path("maximum").asText(), name);
            } else {
                assertEquals(Setting.Type.DURATION, setting.type(), name);
                assertTrue(Long.parseLong(parameter.path("minimum").asText()) >= 1, name + ": a positive duration");
            }
        }
        assertEquals(7, integers, "batchSize, pollDelay, maxAttempts, partitions and three durations in seconds");
    }

    /** The setting's description opens the text, word for word; else a line saying where it drifted. */
    private static void expectOpening(List<String> drifted, String where, Setting setting, String text) {
        String words = setting.description();
        boolean opens = text != null && text.length() >= words.length()
                && text.substring(0, 1).equalsIgnoreCase(words.substring(0, 1))
                && text.startsWith(words.substring(1), 1)
                && (text.length() == words.length() || !Character.isLetterOrDigit(text.charAt(words.length())));
        if (!opens) {
            drifted.add(where + ", " + setting.key() + ": \"" + text + "\" does not open with \"" + words + "\"");
        }
    }

    /** Each key's comment in application.properties: the comment lines right above it, joined. */
    private static Map<String, String> propertyComments() throws Exception {
        Map<String, String> comments = new HashMap<>();
        List<String> comment = new ArrayList<>();
        try (InputStream in = SettingsDefinedOnceTest.class.getClassLoader()
                .getResourceAsStream("application.properties")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("# ")) {
                    comment.add(line.substring(2).strip());
                } else {
                    if (line.contains("=") && !line.startsWith("#")) {
                        comments.put(line.substring(0, line.indexOf('=')).strip(), String.join(" ", comment));
                    }
                    comment.clear();
                }
            }
        }
        return comments;
    }

    private static JsonNode kameletParameters() throws Exception {
        return new ObjectMapper(new YAMLFactory()).readTree(KAMELET.toFile()).path("spec").path("definition")
                .path("properties");
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
