package io.outboxrelay.settings;

import java.util.Optional;
import java.util.function.Function;

/**
 * The operator console's settings: the htpasswd files of its two roles. With neither set the console is off and
 * {@code /outbox/**} answers 404. The files themselves are read and checked by io.outboxrelay.console.Htpasswd.
 */
public record ConsoleSettings(String viewersFile, String operatorsFile) {

    /** @throws InvalidSettingException for a console on MariaDB: its queries are PostgreSQL's so far */
    public static ConsoleSettings read(Function<String, Optional<String>> property) {
        SettingsReader r = new SettingsReader(property);
        ConsoleSettings settings = new ConsoleSettings(r.optionalText(SettingsCatalogue.CONSOLE_VIEWERS),
                r.optionalText(SettingsCatalogue.CONSOLE_OPERATORS));
        if (settings.enabled() && Database.of(SettingsCatalogue.DB_URL.key(), r.text(SettingsCatalogue.DB_URL))
                == Database.MARIADB) {
            Setting given = settings.viewersFile().isBlank() ? SettingsCatalogue.CONSOLE_OPERATORS
                    : SettingsCatalogue.CONSOLE_VIEWERS;
            throw new InvalidSettingException(given.key(), r.optionalText(given),
                    "the operator console runs on PostgreSQL only so far (README, \"MariaDB\")");
        }
        return settings;
    }

    public boolean enabled() {
        return !viewersFile.isBlank() || !operatorsFile.isBlank();
    }
}
