package io.outboxrelay.settings;

import java.util.Optional;
import java.util.function.Function;

/**
 * The operator console's settings: the htpasswd files of its two roles. With neither set the console is off and
 * {@code /outbox/**} answers 404. The files themselves are read and checked by io.outboxrelay.console.Htpasswd.
 */
public record ConsoleSettings(String viewersFile, String operatorsFile) {

    public static ConsoleSettings read(Function<String, Optional<String>> property) {
        SettingsReader r = new SettingsReader(property);
        return new ConsoleSettings(r.optionalText(SettingsCatalogue.CONSOLE_VIEWERS),
                r.optionalText(SettingsCatalogue.CONSOLE_OPERATORS));
    }

    public boolean enabled() {
        return !viewersFile.isBlank() || !operatorsFile.isBlank();
    }
}
