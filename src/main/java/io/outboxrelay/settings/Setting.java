package io.outboxrelay.settings;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.apache.camel.util.StringHelper;

/**
 * One setting of the relay, as {@link SettingsCatalogue} defines it once: its key, type, default, range or choices,
 * what it does, and the outbox Kamelet's parameter that sets it (if any). application.properties, docs/settings.md and
 * the Kamelet are checked against it (config.SettingsDefinedOnceTest); {@link RelaySettings} reads through it, and a
 * setting no source gives has its default ({@link SettingsReader}).
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

    /**
     * The name of the settings record's component it fills: the key after "outbox.", in camel case
     * (outbox.db.pool-size: dbPoolSize; outbox.instance.heartbeat: instanceHeartbeat; inbox.table: inboxTable).
     */
    public String componentName() {
        String name = key.startsWith("outbox.") ? key.substring("outbox.".length()) : key;
        return StringHelper.dashToCamelCase(name.replace('.', '-'));
    }

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

    /** A choice among an enum's constants, each written in lower case with '-' for '_' (CLAIM_INDEX: claim-index). */
    static Setting choice(String key, Enum<?> defaultValue, String description) {
        List<String> words = Arrays.stream(defaultValue.getDeclaringClass().getEnumConstants())
                .map(Setting::wordOf).toList();
        return new Setting(key, Type.CHOICE, wordOf(defaultValue), 0, 0, words, description, null);
    }

    /** The enum constant a word of a choice names. */
    <E extends Enum<E>> E constantOf(String word, Class<E> type) {
        return Enum.valueOf(type, word.toUpperCase(Locale.ROOT).replace('-', '_'));
    }

    private static String wordOf(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The same setting, set by the outbox Kamelet's parameter of this name. */
    Setting kamelet(String parameter) {
        return new Setting(key, type, defaultValue, min, max, choices, description, parameter);
    }
}
