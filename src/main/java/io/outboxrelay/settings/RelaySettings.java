package io.outboxrelay.settings;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

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
 * Every outbox setting, read once and validated before any route starts. Defaults live in application.properties;
 * environment variables override them through Camel's properties component. The routes read the same keys through
 * {{...}} placeholders, so a value that passes here is the value the SQL and endpoints see.
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

    private static final Pattern INSTANCE_ID_FORM = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    private static final Pattern SCHEME = Pattern.compile("([a-z][a-z0-9+.-]*):.+");
    /** The schemes of the Qpid JMS client's URLs. */
    private static final Pattern AMQP_URL = Pattern.compile("(amqps?|amqpwss?|failover):.+");

    /**
     * @param property resolves a key (application.properties, overridden by environment and system properties)
     * @param componentExists tells whether a Camel component of the given scheme is on the classpath
     */
    public static RelaySettings read(Function<String, Optional<String>> property, Predicate<String> componentExists) {
        SettingsReader r = new SettingsReader(property);
        String endpoint = r.text(ENDPOINT);
        var scheme = SCHEME.matcher(endpoint);
        if (!scheme.matches() || !componentExists.test(scheme.group(1))) {
            throw new InvalidSettingException(ENDPOINT.key(), endpoint,
                    "expected a Camel endpoint URI with a known scheme, e.g. kafka:topic, jms:queue:name or "
                            + "amqp:queue:name");
        }
        String dbUrl = dbUrl(r);
        r.text(KAFKA_BROKERS);
        Duration backoffInitial = r.duration(BACKOFF_INITIAL);
        Duration backoffMax = r.duration(BACKOFF_MAX);
        if (backoffMax.compareTo(backoffInitial) < 0) {
            throw new InvalidSettingException(BACKOFF_MAX.key(), backoffMax.toString(),
                    "must not be shorter than outbox.backoff.initial (" + backoffInitial + ")");
        }
        int poolSize = r.integer(DB_POOL_SIZE);
        Duration lease = r.duration(LEASE);
        Duration heartbeat = r.duration(HEARTBEAT);
        Duration staleAfter = r.duration(STALE_AFTER);
        if (lease.compareTo(heartbeat.multipliedBy(3)) < 0) {
            // a lease renewed by every heartbeat must survive two missed ones
            throw new InvalidSettingException(LEASE.key(), lease.toString(),
                    "must be at least 3 x outbox.instance.heartbeat (" + heartbeat + ")");
        }
        if (staleAfter.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new InvalidSettingException(STALE_AFTER.key(), staleAfter.toString(),
                    "must be at least 2 x outbox.instance.heartbeat (" + heartbeat + ")");
        }
        RelaySettings settings = new RelaySettings(
                dbUrl,
                r.text(DB_USER),
                r.optionalText(DB_PASSWORD),
                poolSize,
                TableName.parse(TABLE.key(), r.text(TABLE)),
                r.bool(MIGRATE),
                endpoint,
                scheme.group(1),
                r.text(JMS_BROKER_URL),
                amqpBrokerUrl(r),
                r.text(SOURCE),
                r.integer(BATCH_SIZE),
                r.integer(CONCURRENT_CLAIMS),
                r.integer(POLL_DELAY_MS),
                WakeUp.valueOf(r.choice(WAKE_UP).toUpperCase()
                        .replace('-', '_')),
                r.integer(WAKE_UP_MIN_INTERVAL_MS),
                r.integer(WAKE_UP_MAX_INTERVAL_MS),
                lease,
                instanceId(r.optionalText(INSTANCE_ID)),
                r.integer(PARTITIONS),
                heartbeat,
                staleAfter,
                r.integer(MAX_ATTEMPTS),
                r.integer(MAXIMUM_REDELIVERIES),
                r.integer(REDELIVERY_DELAY_MS),
                r.decimal(REDELIVERY_BACKOFF_MULTIPLIER),
                backoffInitial,
                backoffMax,
                r.bool(FAILED_BLOCKS_KEY),
                r.duration(RETENTION),
                RetentionMode.valueOf(r.choice(RETENTION_MODE).toUpperCase()),
                r.integer(RETENTION_INTERVAL_MS),
                r.integer(RETENTION_BATCH_SIZE),
                r.optionalDuration(ARCHIVE_RETENTION),
                r.integer(METRICS_REFRESH_MS),
                r.integer(HEALTH_PROBE_INTERVAL_MS),
                r.text(ROUTES_DIR),
                schemasDir(r));
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

    /**
     * outbox.amqp.broker-url, checked here so that a mistyped URL stops the relay at start rather than failing every
     * send; the Qpid client itself (and its check of the jms.* options) is loaded on first use.
     */
    private static String amqpBrokerUrl(SettingsReader r) {
        String url = r.text(AMQP_BROKER_URL);
        // the query may hold jms.password: never shown
        String shown = url.replaceFirst("\\?.*", "?...");
        if (!AMQP_URL.matcher(url).matches()) {
            throw new InvalidSettingException(AMQP_BROKER_URL.key(), shown,
                    "expected a Qpid JMS URL such as amqp://host:5672 or amqps://host:5671");
        }
        if (url.matches(".*://[^/?,()]*@.*")) {
            // Qpid refuses a user in the URL itself
            throw new InvalidSettingException(AMQP_BROKER_URL.key(), "(not shown: it holds credentials)",
                    "put the user and password in the query: amqp://host:5672?jms.username=...&jms.password=...");
        }
        return url;
    }

    /**
     * This process's name among the relay instances: the configured name (a pod's name, say), or the host and process
     * id, always followed by a suffix of its own. A relay restarted under the same name is a new owner: it waits for
     * its previous life's partitions to be free like any other instance, instead of taking over events that life may
     * still have had in flight.
     */
    private static String instanceId(String configured) {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        if (configured.isEmpty()) {
            return hostName() + "-" + ManagementFactory.getRuntimeMXBean().getPid() + "-" + suffix;
        }
        if (!INSTANCE_ID_FORM.matcher(configured).matches()) {
            throw new InvalidSettingException(INSTANCE_ID.key(), configured,
                    "expected 1-100 characters of letters, digits and . _ : -");
        }
        return configured + "-" + suffix;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "relay";
        }
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
