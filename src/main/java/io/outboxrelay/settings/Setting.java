package io.outboxrelay.settings;

import java.util.List;
import java.util.Locale;

/**
 * One setting of the relay, as {@link SettingsCatalogue} defines it once: its key, type, default, range or choices,
 * what it does, and the outbox Kamelet's parameter that sets it (if any). application.properties, docs/settings.md and
 * the Kamelet are checked against it (config.SettingsDefinedOnceTest); {@link RelaySettings} reads through it.
 *
 * @param defaultValue the value application.properties gives ("" for none)
 * @param min          the smallest allowed (integers and decimals)
 * @param max          the largest allowed (integers and decimals)
 * @param choices      the allowed words (choices)
 * @param kameletParameter the postgresql-outbox-source Kamelet's parameter for it, or null (durations in seconds)
 */
public record Setting(String key, Type type, String defaultValue, double min, double max, List<String> choices,
        String description, String kameletParameter) {

    /** How a value is read and checked. */
    public enum Type { TEXT, OPTIONAL_TEXT, SECRET, INTEGER, DECIMAL, BOOLEAN, DURATION, OPTIONAL_DURATION, CHOICE }

    /** The environment variable that overrides it: upper case, '.' and '-' become '_'. */
    public String environmentName() {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    static Setting of(String key, Type type, String defaultValue, String description) {
        return new Setting(key, type, defaultValue, 0, 0, List.of(), description, null);
    }

    static Setting integer(String key, String defaultValue, long min, long max, String description) {
        return new Setting(key, Type.INTEGER, defaultValue, min, max, List.of(), description, null);
    }

    static Setting choice(String key, String defaultValue, List<String> choices, String description) {
        return new Setting(key, Type.CHOICE, defaultValue, 0, 0, choices, description, null);
    }

    /** The same setting, set by the outbox Kamelet's parameter of this name. */
    Setting kamelet(String parameter) {
        return new Setting(key, type, defaultValue, min, max, choices, description, parameter);
    }
}
