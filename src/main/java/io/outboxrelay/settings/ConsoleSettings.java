package io.outboxrelay.settings;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The operator console's settings: the htpasswd files of its two roles. With neither set the console is off and
 * {@code /outbox/**} answers 404. The files themselves are read and checked by io.outboxrelay.console.Htpasswd.
 */
public record ConsoleSettings(String consoleViewers, String consoleOperators) {

    /** Built by name from the catalogue ({@link SettingsByName}). */
    public static ConsoleSettings read(Function<String, Optional<String>> property) {
        return SettingsByName.read(ConsoleSettings.class, new SettingsReader(property), Map.of());
    }

    public boolean enabled() {
        return !consoleViewers.isBlank() || !consoleOperators.isBlank();
    }
}
