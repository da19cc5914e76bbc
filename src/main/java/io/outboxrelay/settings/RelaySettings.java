package io.outboxrelay.settings;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import static io.outboxrelay.settings.SettingsCatalogue.AMQP_BROKER_URL;
import static io.outboxrelay.settings.SettingsCatalogue.ARCHIVE_RETENTION;
import static io.outboxrelay.settings.SettingsCatalogue.BACKOFF_INITIAL;
import static io.outboxrelay.settings.SettingsCatalogue.BACKOFF_MAX;
import static io.outboxrelay.settings.SettingsCatalogue.BATCH_SIZE;
import static io.outboxrelay.settings.SettingsCatalogue.CONCURRENT_CLAIMS;
import static io.outboxrelay.settings.SettingsCatalogue.DB_PASSWORD;
import static io.outboxrelay.settings.SettingsCatalogue.DB_POOL_SIZE;
import static io.outboxrelay.settings.SettingsCatalogue.DB_URL;
import static io.outboxrelay.settings.SettingsCatalogue.DB_USER;
import static io.outboxrelay.settings.SettingsCatalogue.ENDPOINT;
import static io.outboxrelay.settings.SettingsCatalogue.FAILED_BLOCKS_KEY;
import static io.outboxrelay.settings.SettingsCatalogue.HEALTH_PROBE_INTERVAL_MS;
import static io.outboxrelay.settings.SettingsCatalogue.HEARTBEAT;
import static io.outboxrelay.settings.SettingsCatalogue.INSTANCE_ID;
import static io.outboxrelay.settings.SettingsCatalogue.JMS_BROKER_URL;
import static io.outboxrelay.settings.SettingsCatalogue.KAFKA_BROKERS;
import static io.outboxrelay.settings.SettingsCatalogue.LEASE;
import static io.outboxrelay.settings.SettingsCatalogue.MAXIMUM_REDELIVERIES;
import static io.outboxrelay.settings.SettingsCatalogue.MAX_ATTEMPTS;
import static io.outboxrelay.settings.SettingsCatalogue.METRICS_REFRESH_MS;
import static io.outboxrelay.settings.SettingsCatalogue.MIGRATE;
import static io.outboxrelay.settings.SettingsCatalogue.PARTITIONS;
import static io.outboxrelay.settings.SettingsCatalogue.POLL_DELAY_MS;
import static io.outboxrelay.settings.SettingsCatalogue.REDELIVERY_BACKOFF_MULTIPLIER;
import static io.outboxrelay.settings.SettingsCatalogue.REDELIVERY_DELAY_MS;
import static io.outboxrelay.settings.SettingsCatalogue.RETENTION;
import static io.outboxrelay.settings.SettingsCatalogue.RETENTION_BATCH_SIZE;
import static io.outboxrelay.settings.SettingsCatalogue.RETENTION_INTERVAL_MS;
import static io.outboxrelay.settings.SettingsCatalogue.RETENTION_MODE;
import static io.outboxrelay.settings.SettingsCatalogue.ROUTES_DIR;
import static io.outboxrelay.settings.SettingsCatalogue.SCHEMAS_DIR;
import static io.outboxrelay.settings.SettingsCatalogue.SOURCE;
import static io.outboxrelay.settings.SettingsCatalogue.STALE_AFTER;
import static io.outboxrelay.settings.SettingsCatalogue.TABLE;
import static io.outboxrelay.settings.SettingsCatalogue.WAKE_UP;
import static io.outboxrelay.settings.SettingsCatalogue.WAKE_UP_MAX_INTERVAL_MS;
import static io.outboxrelay.settings.SettingsCatalogue.WAKE_UP_MIN_INTERVAL_MS;

/**
 * Every outbox setting, read once through the catalogue ({@link SettingsCatalogue}: type, default, range or choices)
 * and validated before any route starts; the rules between settings and the forms of a few values are
 * {@link SettingRules}'. application.properties, environment variables and system properties give the values through
 * Camel's properties component; the routes read the same keys through {{...}} placeholders, so a value that passes here
 * is the value the SQL and endpoints see.
 */
public record RelaySettings(
        String dbUrl,
        String dbUser,
        String dbPassword,
        int dbPoolSize,
        TableName table,
        boolean migrate,
        String endpoint,
        String endpointScheme,
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
        Duration heartbeat,
        Duration staleAfter,
        int maxAttempts,
        int maximumRedeliveries,
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
        String endpoint = r.text(ENDPOINT);
        String endpointScheme = SettingRules.endpointScheme(endpoint, componentExists);
        r.text(KAFKA_BROKERS);
        RelaySettings settings = new RelaySettings(
                dbUrl(r),
                r.text(DB_USER),
                r.optionalText(DB_PASSWORD),
                r.integer(DB_POOL_SIZE),
                TableName.parse(TABLE.key(), r.text(TABLE)),
                r.bool(MIGRATE),
                endpoint,
                endpointScheme,
                r.text(JMS_BROKER_URL),
                SettingRules.amqpBrokerUrl(r.text(AMQP_BROKER_URL)),
                r.text(SOURCE),
                r.integer(BATCH_SIZE),
                r.integer(CONCURRENT_CLAIMS),
                r.integer(POLL_DELAY_MS),
                r.choice(WAKE_UP, WakeUp.class),
                r.integer(WAKE_UP_MIN_INTERVAL_MS),
                r.integer(WAKE_UP_MAX_INTERVAL_MS),
                r.duration(LEASE),
                SettingRules.instanceId(r.optionalText(INSTANCE_ID)),
                r.integer(PARTITIONS),
                r.duration(HEARTBEAT),
                r.duration(STALE_AFTER),
                r.integer(MAX_ATTEMPTS),
                r.integer(MAXIMUM_REDELIVERIES),
                r.integer(REDELIVERY_DELAY_MS),
                r.decimal(REDELIVERY_BACKOFF_MULTIPLIER),
                r.duration(BACKOFF_INITIAL),
                r.duration(BACKOFF_MAX),
                r.bool(FAILED_BLOCKS_KEY),
                r.duration(RETENTION),
                r.choice(RETENTION_MODE, RetentionMode.class),
                r.integer(RETENTION_INTERVAL_MS),
                r.integer(RETENTION_BATCH_SIZE),
                r.optionalDuration(ARCHIVE_RETENTION),
                r.integer(METRICS_REFRESH_MS),
                r.integer(HEALTH_PROBE_INTERVAL_MS),
                r.text(ROUTES_DIR),
                schemasDir(r));
        SettingRules.checkTogether(settings);
        settings.database().checkSupported(settings);
        return settings;
    }

    /**
     * outbox.schemas-dir, the same for the relay and the operator's validate command; empty (the default) checks no
     * event against a schema. The files themselves are read by io.outboxrelay.event.EventSchemas.
     */
    static String schemasDir(SettingsReader r) {
        return r.optionalText(SCHEMAS_DIR);
    }

    /** outbox.db.url, checked the same way for the relay and the operator commands ({@link OperatorSettings}). */
    static String dbUrl(SettingsReader r) {
        String dbUrl = r.text(DB_URL);
        Database.of(DB_URL.key(), dbUrl);
        return dbUrl;
    }

    /** The database outbox.db.url names (checked when read). */
    public Database database() {
        return Database.of(DB_URL.key(), dbUrl);
    }

    // Durations as the SQL statements bind them (PostgreSQL reads ISO-8601 as an interval)

    public String staleAfterInterval() {
        return staleAfter.toString();
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
