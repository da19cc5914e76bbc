package io.outboxrelay.settings;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The inbox's settings (the consumer side: routes/inbox.camel.yaml), read and validated with the relay's. Its
 * retention janitor shares the outbox's interval and batch size (outbox.retention.interval-ms, .batch-size).
 */
public record InboxSettings(TableName table, boolean migrate, Duration retention) {

    public static InboxSettings read(Function<String, Optional<String>> property) {
        SettingsReader r = new SettingsReader(property);
        return new InboxSettings(
                TableName.parse(SettingsCatalogue.INBOX_TABLE.key(), r.text(SettingsCatalogue.INBOX_TABLE)),
                r.bool(SettingsCatalogue.INBOX_MIGRATE),
                r.duration(SettingsCatalogue.INBOX_RETENTION));
    }

    /** inbox.retention as the janitor's SQL binds it (PostgreSQL reads ISO-8601 as an interval). */
    public String retentionInterval() {
        return retention.toString();
    }
}
