package io.outboxrelay.settings;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

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

    private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");
    /**
     * The new-events watch (or the insert listener) holds a connection; claims, the heartbeat, metrics and retention
     * share the others.
     */
    private static final int MIN_POOL_SIZE = 4;
    private static final Pattern SCHEME = Pattern.compile("([a-z][a-z0-9+.-]*):.+");
    /** The schemes of the Qpid JMS client's URLs. */
    private static final Pattern AMQP_URL = Pattern.compile("(amqps?|amqpwss?|failover):.+");

    /**
     * @param property resolves a key (application.properties, overridden by environment and system properties)
     * @param componentExists tells whether a Camel component of the given scheme is on the classpath
     */
    public static RelaySettings read(Function<String, Optional<String>> property, Predicate<String> componentExists) {
        Reader r = new Reader(property);
        String endpoint = r.text("outbox.endpoint");
        var scheme = SCHEME.matcher(endpoint);
        if (!scheme.matches() || !componentExists.test(scheme.group(1))) {
            throw new InvalidSettingException("outbox.endpoint", endpoint,
                    "expected a Camel endpoint URI with a known scheme, e.g. kafka:topic, jms:queue:name or "
                            + "amqp:queue:name");
        }
        String dbUrl = dbUrl(r);
        r.text("camel.component.kafka.brokers");
        Duration backoffInitial = r.duration("outbox.backoff.initial");
        Duration backoffMax = r.duration("outbox.backoff.max");
        if (backoffMax.compareTo(backoffInitial) < 0) {
            throw new InvalidSettingException("outbox.backoff.max", backoffMax.toString(),
                    "must not be shorter than outbox.backoff.initial (" + backoffInitial + ")");
        }
        int poolSize = r.integer("outbox.db.pool-size", MIN_POOL_SIZE, 100);
        Duration lease = r.duration("outbox.lease");
        Duration heartbeat = r.duration("outbox.instance.heartbeat");
        Duration staleAfter = r.duration("outbox.instance.stale-after");
        if (lease.compareTo(heartbeat.multipliedBy(3)) < 0) {
            // a lease renewed by every heartbeat must survive two missed ones
            throw new InvalidSettingException("outbox.lease", lease.toString(),
                    "must be at least 3 x outbox.instance.heartbeat (" + heartbeat + ")");
        }
        if (staleAfter.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new InvalidSettingException("outbox.instance.stale-after", staleAfter.toString(),
                    "must be at least 2 x outbox.instance.heartbeat (" + heartbeat + ")");
        }
        return new RelaySettings(
                dbUrl,
                r.text("outbox.db.user"),
                r.optionalText("outbox.db.password"),
                poolSize,
                TableName.parse("outbox.table", r.text("outbox.table")),
                r.bool("outbox.schema.migrate"),
                endpoint,
                scheme.group(1),
                r.text("outbox.jms.broker-url"),
                amqpBrokerUrl(r),
                r.text("outbox.source"),
                r.integer("outbox.batch-size", 1, 10_000),
                r.integer("outbox.concurrent-claims", 1, 64),
                r.integer("outbox.poll-delay-ms", 1, 3_600_000),
                WakeUp.valueOf(r.choice("outbox.wake-up", "sequence", "claim-index", "notify").toUpperCase()
                        .replace('-', '_')),
                r.integer("outbox.wake-up.min-interval-ms", 1, 1_000),
                r.integer("outbox.wake-up.max-interval-ms", 1, 10_000),
                lease,
                instanceId(r.optionalText("outbox.instance-id")),
                r.integer("outbox.partitions", 1, 4_096),
                heartbeat,
                staleAfter,
                r.integer("outbox.max-attempts", 1, 1_000),
                r.integer("outbox.redelivery.maximum-redeliveries", 0, 100),
                r.integer("outbox.redelivery.delay-ms", 0, 600_000),
                r.decimal("outbox.redelivery.backoff-multiplier", 1.0, 100.0),
                backoffInitial,
                backoffMax,
                r.bool("outbox.failed-blocks-key"),
                r.duration("outbox.retention"),
                RetentionMode.valueOf(r.choice("outbox.retention.mode", "delete", "archive").toUpperCase()),
                r.integer("outbox.retention.interval-ms", 1_000, Integer.MAX_VALUE),
                r.integer("outbox.retention.batch-size", 1, 1_000_000),
                r.optionalDuration("outbox.archive.retention"),
                r.integer("outbox.metrics.refresh-ms", 100, 3_600_000),
                r.integer("outbox.health.probe-interval-ms", 100, 600_000),
                r.text("outbox.routes-dir"),
                schemasDir(r));
    }

    /**
     * outbox.schemas-dir, the same for the relay and the operator's validate command; empty (the default) checks no
     * event against a schema. The files themselves are read by io.outboxrelay.event.EventSchemas.
     */
    static String schemasDir(Reader r) {
        return r.optionalText("outbox.schemas-dir");
    }

    /** outbox.db.url, checked the same way for the relay and the operator commands ({@link OperatorSettings}). */
    static String dbUrl(Reader r) {
        String dbUrl = r.text("outbox.db.url");
        if (!dbUrl.startsWith("jdbc:postgresql:")) {
            throw new InvalidSettingException("outbox.db.url", dbUrl, "expected a jdbc:postgresql: URL");
        }
        return dbUrl;
    }

    /**
     * outbox.amqp.broker-url, checked here so that a mistyped URL stops the relay at start rather than failing every
     * send; the Qpid client itself (and its check of the jms.* options) is loaded on first use.
     */
    private static String amqpBrokerUrl(Reader r) {
        String url = r.text("outbox.amqp.broker-url");
        // the query may hold jms.password: never shown
        String shown = url.replaceFirst("\\?.*", "?...");
        if (!AMQP_URL.matcher(url).matches()) {
            throw new InvalidSettingException("outbox.amqp.broker-url", shown,
                    "expected a Qpid JMS URL such as amqp://host:5672 or amqps://host:5671");
        }
        if (url.matches(".*://[^/?,()]*@.*")) {
            // Qpid refuses a user in the URL itself
            throw new InvalidSettingException("outbox.amqp.broker-url", "(not shown: it holds credentials)",
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
        if (!INSTANCE_ID.matcher(configured).matches()) {
            throw new InvalidSettingException("outbox.instance-id", configured,
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

    /** Typed, range-checked reads; every failure names its key. */
    record Reader(Function<String, Optional<String>> property) {

        String optionalText(String key) {
            return property.apply(key).map(String::trim).orElse("");
        }

        String text(String key) {
            String value = optionalText(key);
            if (value.isEmpty()) {
                throw new InvalidSettingException(key, value, "must not be empty");
            }
            return value;
        }

        int integer(String key, int min, int max) {
            String value = text(key);
            try {
                int parsed = Integer.parseInt(value);
                if (parsed >= min && parsed <= max) {
                    return parsed;
                }
            } catch (NumberFormatException e) {
                // reported below with the expected range
            }
            throw new InvalidSettingException(key, value, "expected an integer from " + min + " to " + max);
        }

        double decimal(String key, double min, double max) {
            String value = text(key);
            try {
                double parsed = Double.parseDouble(value);
                if (parsed >= min && parsed <= max) {
                    return parsed;
                }
            } catch (NumberFormatException e) {
                // reported below with the expected range
            }
            throw new InvalidSettingException(key, value, "expected a number from " + min + " to " + max);
        }

        boolean bool(String key) {
            String value = text(key);
            if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
                return Boolean.parseBoolean(value);
            }
            throw new InvalidSettingException(key, value, "expected true or false");
        }

        /** One of the given words, exactly. */
        String choice(String key, String... allowed) {
            String value = text(key);
            for (String word : allowed) {
                if (word.equals(value)) {
                    return value;
                }
            }
            throw new InvalidSettingException(key, value, "expected one of " + String.join(", ", allowed));
        }

        /** A duration as {@link #duration}, or null when the key is empty. */
        Duration optionalDuration(String key) {
            return optionalText(key).isEmpty() ? null : duration(key);
        }

        /** ISO-8601 durations; PostgreSQL reads the same text as an interval, so the SQL can use it as is. */
        Duration duration(String key) {
            String value = text(key);
            try {
                Duration parsed = Duration.parse(value);
                if (!parsed.isNegative() && !parsed.isZero()) {
                    return parsed;
                }
            } catch (DateTimeParseException e) {
                // reported below with an example
            }
            throw new InvalidSettingException(key, value, "expected a positive ISO-8601 duration such as PT30S or P7D");
        }
    }
}
