package io.outboxrelay.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Typed, range-checked reads of the catalogue's settings; every failure names its key. A setting no source gives
 * (application.properties, environment, system properties) has the catalogue's default: the catalogue is the source
 * of defaults at runtime, wherever the relay runs (the jar, the Kamelet, the operator commands).
 */
record SettingsReader(Function<String, Optional<String>> property) {

    String optionalText(Setting setting) {
        expect(setting, Setting.Type.OPTIONAL_TEXT, Setting.Type.SECRET);
        return value(setting);
    }

    String text(Setting setting) {
        expect(setting, Setting.Type.TEXT);
        return nonEmpty(setting);
    }

    int integer(Setting setting) {
        expect(setting, Setting.Type.INTEGER);
        return (int) inRange(setting, Integer::parseInt,
                "an integer from " + (long) setting.min() + " to " + (long) setting.max());
    }

    double decimal(Setting setting) {
        expect(setting, Setting.Type.DECIMAL);
        return inRange(setting, Double::parseDouble, "a number from " + setting.min() + " to " + setting.max());
    }

    boolean bool(Setting setting) {
        expect(setting, Setting.Type.BOOLEAN);
        String value = nonEmpty(setting);
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new InvalidSettingException(setting.key(), value, "expected true or false");
    }

    /** One of the setting's words, exactly, as the constant of its enum ({@link Setting#constantOf}). */
    <E extends Enum<E>> E choice(Setting setting, Class<E> type) {
        expect(setting, Setting.Type.CHOICE);
        String value = nonEmpty(setting);
        if (!setting.choices().contains(value)) {
            throw new InvalidSettingException(setting.key(), value,
                    "expected one of " + String.join(", ", setting.choices()));
        }
        return setting.constantOf(value, type);
    }

    Duration duration(Setting setting) {
        expect(setting, Setting.Type.DURATION);
        return duration(setting, nonEmpty(setting));
    }

    Duration optionalDuration(Setting setting) {
        expect(setting, Setting.Type.OPTIONAL_DURATION);
        String value = value(setting);
        return value.isEmpty() ? null : duration(setting, value);
    }

    private static void expect(Setting setting, Setting.Type... types) {
        if (!List.of(types).contains(setting.type())) {
            throw new IllegalStateException(setting.key() + " is a " + setting.type() + " setting");
        }
    }

    /**
     * The value given, trimmed, or the catalogue's default when none is; an empty one of a setting whose default
     * differs by database is that database's (outbox.db.url's).
     */
    private String value(Setting setting) {
        String value = property.apply(setting.key()).orElse(setting.defaultValue()).trim();
        Map<Database, String> byDatabase = SettingsCatalogue.databaseDefaults(setting);
        if (value.isEmpty() && !byDatabase.isEmpty()) {
            return byDatabase.get(Database.of(SettingsCatalogue.DB_URL.key(), nonEmpty(SettingsCatalogue.DB_URL)));
        }
        return value;
    }

    private String nonEmpty(Setting setting) {
        String value = value(setting);
        if (value.isEmpty()) {
            throw new InvalidSettingException(setting.key(), value, "must not be empty");
        }
        return value;
    }

    /** A number the parser reads and the setting's range holds, else a refusal saying what was expected. */
    private double inRange(Setting setting, ToDoubleFunction<String> parser, String expected) {
        String value = nonEmpty(setting);
        try {
            double parsed = parser.applyAsDouble(value);
            if (parsed >= setting.min() && parsed <= setting.max()) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // refused below with the expected range
        }
        throw new InvalidSettingException(setting.key(), value, "expected " + expected);
    }

    /** ISO-8601 durations; PostgreSQL reads the same text as an interval, so the SQL can use it as is. */
    private static Duration duration(Setting setting, String value) {
        try {
            Duration parsed = Duration.parse(value);
            if (!parsed.isNegative() && !parsed.isZero()) {
                return parsed;
            }
        } catch (DateTimeParseException e) {
            // reported below with an example
        }
        throw new InvalidSettingException(setting.key(), value,
                "expected a positive ISO-8601 duration such as PT30S or P7D");
    }
}
