package io.outboxrelay.settings;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The inbox's settings (the consumer side: routes/inbox.camel.yaml), read and validated with the relay's. Its
 * retention janitor shares the outbox's interval and batch size (outbox.retention.interval-ms, .batch-size).
 */
public record InboxSettings(TableName inboxTable, boolean inboxSchemaMigrate, Duration inboxRetention) {

    /** Built by name from the catalogue ({@link SettingsByName}), the table parsed. */
    public static InboxSettings read(Function<String, Optional<String>> property) {
        return SettingsByName.read(InboxSettings.class, new SettingsReader(property), Map.of(
                SettingsCatalogue.INBOX_TABLE, table -> TableName.parse(SettingsCatalogue.INBOX_TABLE.key(), table)));
    }

    /** inbox.retention as the janitor's SQL binds it (PostgreSQL reads ISO-8601 as an interval). */
    public String retentionInterval() {
        return inboxRetention.toString();
    }
}
