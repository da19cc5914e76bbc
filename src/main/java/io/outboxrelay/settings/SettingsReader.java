package io.outboxrelay.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Typed, range-checked reads of the catalogue's settings; every failure names its key. */
record SettingsReader(Function<String, Optional<String>> property) {

    String optionalText(Setting setting) {
        expect(setting, Setting.Type.OPTIONAL_TEXT, Setting.Type.SECRET);
        return optionalText(setting.key());
    }

    String text(Setting setting) {
        expect(setting, Setting.Type.TEXT);
        return text(setting.key());
    }

    int integer(Setting setting) {
        expect(setting, Setting.Type.INTEGER);
        return integer(setting.key(), (int) setting.min(), (int) setting.max());
    }

    double decimal(Setting setting) {
        expect(setting, Setting.Type.DECIMAL);
        return decimal(setting.key(), setting.min(), setting.max());
    }

    boolean bool(Setting setting) {
        expect(setting, Setting.Type.BOOLEAN);
        return bool(setting.key());
    }

    String choice(Setting setting) {
        expect(setting, Setting.Type.CHOICE);
        return choice(setting.key(), setting.choices().toArray(String[]::new));
    }

    Duration duration(Setting setting) {
        expect(setting, Setting.Type.DURATION);
        return duration(setting.key());
    }

    Duration optionalDuration(Setting setting) {
        expect(setting, Setting.Type.OPTIONAL_DURATION);
        return optionalText(setting.key()).isEmpty() ? null : duration(setting.key());
    }

    private static void expect(Setting setting, Setting.Type... types) {
        if (!List.of(types).contains(setting.type())) {
            throw new IllegalStateException(setting.key() + " is a " + setting.type() + " setting");
        }
    }

    private String optionalText(String key) {
        return property.apply(key).map(String::trim).orElse("");
    }

    private String text(String key) {
        String value = optionalText(key);
        if (value.isEmpty()) {
            throw new InvalidSettingException(key, value, "must not be empty");
        }
        return value;
    }

    private int integer(String key, int min, int max) {
        String value = text(key);
        try {
            int parsed = Integer.parseInt(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below with the expected range
        }
        throw new InvalidSettingException(key, value, "expected an integer from " + min + " to " + max);
    }

    private double decimal(String key, double min, double max) {
        String value = text(key);
        try {
            double parsed = Double.parseDouble(value);
            if (parsed >= min && parsed <= max) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // reported below with the expected range
        }
        throw new InvalidSettingException(key, value, "expected a number from " + min + " to " + max);
    }

    private boolean bool(String key) {
        String value = text(key);
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new InvalidSettingException(key, value, "expected true or false");
    }

    /** One of the given words, exactly. */
    private String choice(String key, String... allowed) {
        String value = text(key);
        for (String word : allowed) {
            if (word.equals(value)) {
                return value;
            }
        }
        throw new InvalidSettingException(key, value, "expected one of " + String.join(", ", allowed));
    }

    /** ISO-8601 durations; PostgreSQL reads the same text as an interval, so the SQL can use it as is. */
    private Duration duration(String key) {
        String value = text(key);
        try {
            Duration parsed = Duration.parse(value);
            if (!parsed.isNegative() && !parsed.isZero()) {
                return parsed;
            }
        } catch (DateTimeParseException e) {
            // reported below with an example
        }
        throw new InvalidSettingException(key, value, "expected a positive ISO-8601 duration such as PT30S or P7D");
    }
}
