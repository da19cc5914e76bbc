package io.outboxrelay.settings;

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
public record OperatorSettings(String dbUrl, Database database, String dbUser, String dbPassword, TableName table,
        boolean failedBlocksKey, String schemasDir) {

    /** @param property resolves a key (application.properties, overridden by environment and system properties) */
    public static OperatorSettings read(Function<String, Optional<String>> property) {
        SettingsReader r = new SettingsReader(property);
        String dbUrl = RelaySettings.dbUrl(r);
        return new OperatorSettings(
                dbUrl,
                Database.of(SettingsCatalogue.DB_URL.key(), dbUrl),
                r.text(SettingsCatalogue.DB_USER),
                r.optionalText(SettingsCatalogue.DB_PASSWORD),
                TableName.parse(SettingsCatalogue.TABLE.key(), r.text(SettingsCatalogue.TABLE)),
                r.bool(SettingsCatalogue.FAILED_BLOCKS_KEY),
                RelaySettings.schemasDir(r));
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
