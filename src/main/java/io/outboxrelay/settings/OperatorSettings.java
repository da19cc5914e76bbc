package io.outboxrelay.settings;

import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The few settings the operator commands (io.outboxrelay.cli) use: where the outbox is (on PostgreSQL or MariaDB, told
 * by the URL), whether a FAILED event holds back its key (for the "keys held back" figure, as the relay's gauge counts
 * it), and where the event schemas are (for the validate command). They are read from the same sources and checked
 * exactly as {@link RelaySettings} checks them, with the same one-line messages; the relay's other settings (endpoint,
 * batch size, ...) are not read, so a mistake there does not stop an operator from looking at the table the relay
 * cannot drain.
 */
public record OperatorSettings(String dbUrl, String dbUser, String dbPassword, TableName table, boolean failedBlocksKey,
        String schemasDir) {

    /**
     * Built by name from the catalogue ({@link SettingsByName}), with the relay's forms of the URL and the table.
     *
     * @param property resolves a key (application.properties, overridden by environment and system properties)
     */
    public static OperatorSettings read(Function<String, Optional<String>> property) {
        return SettingsByName.read(OperatorSettings.class, new SettingsReader(property), Map.of(
                SettingsCatalogue.DB_URL, RelaySettings::checkedDbUrl,
                SettingsCatalogue.TABLE, table -> TableName.parse(SettingsCatalogue.TABLE.key(), table)));
    }

    /** The database outbox.db.url names (checked when read). */
    public Database database() {
        return Database.of(SettingsCatalogue.DB_URL.key(), dbUrl);
    }

    /** The URL without its query string, which may carry a password: safe to print. */
    public String dbUrlForDisplay() {
        int query = dbUrl.indexOf('?');
        return query < 0 ? dbUrl : dbUrl.substring(0, query);
    }

    /** Hides the password. */
    @Override
    public String toString() {
        return "OperatorSettings[dbUrl=" + dbUrlForDisplay() + ", dbUser=" + dbUser + ", table=" + table.qualified()
                + ", failedBlocksKey=" + failedBlocksKey + "]";
    }
}
