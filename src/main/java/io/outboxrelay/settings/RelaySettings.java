package io.outboxrelay.settings;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import static io.outboxrelay.settings.SettingsCatalogue.AMQP_BROKER_URL;
import static io.outboxrelay.settings.SettingsCatalogue.DB_URL;
import static io.outboxrelay.settings.SettingsCatalogue.ENDPOINT;
import static io.outboxrelay.settings.SettingsCatalogue.INSTANCE_ID;
import static io.outboxrelay.settings.SettingsCatalogue.KAFKA_BROKERS;
import static io.outboxrelay.settings.SettingsCatalogue.TABLE;

/**
 * Every outbox setting, read once through the catalogue ({@link SettingsCatalogue}: type, default, range or choices)
 * and validated before any route starts; the rules between settings and the forms of a few values are
 * {@link SettingRules}'. Each component is named after the key of the setting that fills it
 * ({@link Setting#componentName()}: outbox.db.pool-size fills dbPoolSize), and is filled by that name, not by its
 * position ({@link SettingsByName}). application.properties, environment variables and system properties give the
 * values through Camel's properties component; the routes read the same keys through {{...}} placeholders, so a value
 * that passes here is the value the SQL and endpoints see.
 */
public record RelaySettings(
        String dbUrl,
        String dbUser,
        String dbPassword,
        int dbPoolSize,
        TableName table,
        boolean schemaMigrate,
        String endpoint,
        String jmsBrokerUrl,
        String amqpBrokerUrl,
        String source,
        int batchSize,
        int concurrentClaims,
        int pollDelayMs,
        WakeUp wakeUp,
        int wakeUpMinIntervalMs,
        int wakeUpMaxIntervalMs,
        Duration lease,
        String instanceId,
        int partitions,
        Duration instanceHeartbeat,
        Duration instanceStaleAfter,
        int maxAttempts,
        int redeliveryMaximumRedeliveries,
        int redeliveryDelayMs,
        double redeliveryBackoffMultiplier,
        Duration backoffInitial,
        Duration backoffMax,
        boolean failedBlocksKey,
        Duration retention,
        RetentionMode retentionMode,
        int retentionIntervalMs,
        int retentionBatchSize,
        Duration archiveRetention,
        int metricsRefreshMs,
        int healthProbeIntervalMs,
        String routesDir,
        String schemasDir) {

    /**
     * The settings a relay's components hold: the catalogue's outbox.* settings but the console's (ConsoleSettings').
     * camel.component.kafka.brokers is Camel's own, checked here only; inbox.* are InboxSettings'.
     */
    static final List<Setting> SETTINGS = SettingsCatalogue.ALL.stream()
            .filter(setting -> setting.key().startsWith("outbox.") && !setting.key().startsWith("outbox.console."))
            .toList();

    /**
     * How new events are found (outbox.wake-up): watching the outbox's sequence (the default), watching the claim
     * index (the other candidate measured), or LISTEN for a trigger the user installed.
     */
    public enum WakeUp { SEQUENCE, CLAIM_INDEX, NOTIFY }

    /** What retention does with old PUBLISHED rows (outbox.retention.mode): delete, or move to the archive. */
    public enum RetentionMode { DELETE, ARCHIVE }

    /**
     * @param property resolves a key (application.properties, overridden by environment and system properties)
     * @param componentExists tells whether a Camel component of the given scheme is on the classpath
     */
    public static RelaySettings read(Function<String, Optional<String>> property, Predicate<String> componentExists) {
        SettingsReader r = new SettingsReader(property);
        SettingRules.endpointScheme(r.text(ENDPOINT), componentExists);
        r.text(KAFKA_BROKERS);
        // the few values with a form of their own, beyond their setting's type and range
        Map<Setting, Function<String, Object>> forms = Map.of(
                DB_URL, RelaySettings::checkedDbUrl,
                TABLE, table -> TableName.parse(TABLE.key(), table),
                AMQP_BROKER_URL, SettingRules::amqpBrokerUrl,
                INSTANCE_ID, SettingRules::instanceId);
        RelaySettings settings = SettingsByName.read(RelaySettings.class, r, forms);
        SettingRules.checkTogether(settings);
        settings.database().checkSupported(settings);
        return settings;
    }

    /** outbox.db.url, checked the same way for the relay and the operator commands ({@link OperatorSettings}). */
    static String checkedDbUrl(String dbUrl) {
        Database.of(DB_URL.key(), dbUrl);
        return dbUrl;
    }

    /** The scheme of outbox.endpoint (kafka, jms, amqp, ...), a Camel component's: checked when read. */
    public String endpointScheme() {
        return endpoint.substring(0, endpoint.indexOf(':'));
    }

    /** outbox.instance.heartbeat in milliseconds: the heartbeat timer's period (routes/heartbeat.camel.yaml). */
    public long heartbeatMillis() {
        return instanceHeartbeat.toMillis();
    }

    /** The database outbox.db.url names (checked when read). */
    public Database database() {
        return Database.of(DB_URL.key(), dbUrl);
    }

    // Durations as the SQL statements bind them (PostgreSQL reads ISO-8601 as an interval)

    public String staleAfterInterval() {
        return instanceStaleAfter.toString();
    }

    public String leaseInterval() {
        return lease.toString();
    }

    public String backoffInitialInterval() {
        return backoffInitial.toString();
    }

    public String backoffMaxInterval() {
        return backoffMax.toString();
    }

    public String retentionInterval() {
        return retention.toString();
    }

    /** outbox.retention.mode=archive: retention moves rows to the archive table instead of deleting them. */
    public boolean archiveMode() {
        return retentionMode == RetentionMode.ARCHIVE;
    }

    /** outbox.archive.retention as an interval, or "" to keep archived rows forever. */
    public String archiveRetentionInterval() {
        return archiveRetention == null ? "" : archiveRetention.toString();
    }

    /** Hides the password from toString(), which Camel may log when it lists registry beans. */
    @Override
    public String toString() {
        return "RelaySettings[table=" + table.qualified() + ", endpoint=" + endpoint + ", batchSize=" + batchSize
                + ", instanceId=" + instanceId + "]";
    }
}
