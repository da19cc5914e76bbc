package io.outboxrelay.settings;

import java.util.List;
import java.util.Map;

import static io.outboxrelay.settings.Setting.Type.BOOLEAN;
import static io.outboxrelay.settings.Setting.Type.DECIMAL;
import static io.outboxrelay.settings.Setting.Type.DURATION;
import static io.outboxrelay.settings.Setting.Type.OPTIONAL_DURATION;
import static io.outboxrelay.settings.Setting.Type.OPTIONAL_TEXT;
import static io.outboxrelay.settings.Setting.Type.SECRET;
import static io.outboxrelay.settings.Setting.Type.TEXT;

/**
 * Every setting of the relay, each defined here once ({@link Setting}); docs/settings.md says more about each.
 */
public final class SettingsCatalogue {

    public static final Setting DB_URL = Setting.of("outbox.db.url", TEXT,
            "jdbc:postgresql://localhost:5432/postgres",
            "JDBC URL of the database holding the outbox")
            .kamelet("databaseUrl");
    public static final Setting DB_USER = Setting.of("outbox.db.user", TEXT, "postgres", "database user")
            .kamelet("username");
    public static final Setting DB_PASSWORD = Setting.of("outbox.db.password", SECRET, "",
            "database password (never logged)").kamelet("password");
    /** At least 4: the new-events watch (with outbox.wake-up=notify, the insert listener) holds one; claims, the
     * heartbeat, metrics and retention share the others. */
    public static final Setting DB_POOL_SIZE = Setting.integer("outbox.db.pool-size", "8", 4, 100,
            "connections in the relay's pool");
    public static final Setting TABLE = Setting.of("outbox.table", TEXT, "outbox",
            "outbox table, optionally schema-qualified").kamelet("table");
    public static final Setting MIGRATE = Setting.of("outbox.schema.migrate", BOOLEAN, "true",
            "create and upgrade the table with the bundled migrations at start");
    public static final Setting ENDPOINT = Setting.of("outbox.endpoint", TEXT,
            "kafka:outbox.event.${header.ce_aggregatetype}", "Camel endpoint URI each event is sent to");
    public static final Setting KAFKA_BROKERS = Setting.of("camel.component.kafka.brokers", TEXT, "localhost:9092",
            "Kafka bootstrap servers");
    public static final Setting JMS_BROKER_URL = Setting.of("outbox.jms.broker-url", TEXT, "tcp://localhost:61616",
            "ActiveMQ Artemis broker of jms: endpoints");
    public static final Setting AMQP_BROKER_URL = Setting.of("outbox.amqp.broker-url", TEXT, "amqp://localhost:5672",
            "AMQP 1.0 broker (e.g. RabbitMQ) of amqp: endpoints, as a Qpid JMS URL");
    public static final Setting SOURCE = Setting.of("outbox.source", TEXT, "/outbox",
            "CloudEvents source attribute of every event").kamelet("source");
    public static final Setting BATCH_SIZE = Setting.integer("outbox.batch-size", "2000", 1, 10_000,
            "events claimed and not yet marked PUBLISHED by an instance, at most").kamelet("batchSize");
    // 2, not 4: on two cores two fuller claims drained 12-15% faster on PostgreSQL and 35-40% faster on MariaDB, at
    // a third less relay CPU per event and unchanged steady latency (docs/BENCHMARKS.md, "Issue 33")
    public static final Setting CONCURRENT_CLAIMS = Setting.integer("outbox.concurrent-claims", "2", 1, 64,
            "claims in progress at once");
    public static final Setting PARTITIONS = Setting.integer("outbox.partitions", "32", 1, 4_096,
            "partitions of the outbox").kamelet("partitions");
    public static final Setting HEARTBEAT = Setting.of("outbox.instance.heartbeat", DURATION, "PT2S",
            "how often an instance renews its partitions' leases and takes or gives up partitions");
    public static final Setting STALE_AFTER = Setting.of("outbox.instance.stale-after", DURATION, "PT6S",
            "an instance silent for this long no longer counts when partitions are shared out");
    public static final Setting LEASE = Setting.of("outbox.lease", DURATION, "PT6S",
            "how long a partition stays with an instance after its last heartbeat")
            .kamelet("leaseSeconds");
    public static final Setting WAKE_UP = Setting.choice("outbox.wake-up", RelaySettings.WakeUp.SEQUENCE,
            "how new events are found");
    public static final Setting WAKE_UP_MIN_INTERVAL_MS = Setting.integer("outbox.wake-up.min-interval-ms", "", 1,
            1_000, "pause between two looks at the sequence while events arrive");
    public static final Setting WAKE_UP_MAX_INTERVAL_MS = Setting.integer("outbox.wake-up.max-interval-ms", "25", 1,
            10_000, "longest pause between two looks at the sequence while no events arrive");
    public static final Setting POLL_DELAY_MS = Setting.integer("outbox.poll-delay-ms", "5000", 1, 3_600_000,
            "safety-net interval, in ms").kamelet("pollDelay");
    public static final Setting INSTANCE_ID = Setting.of("outbox.instance-id", OPTIONAL_TEXT, "",
            "this instance's name in the instances and partitions tables");
    public static final Setting MAX_ATTEMPTS = Setting.integer("outbox.max-attempts", "10", 1, 1_000,
            "failed attempts before an event becomes FAILED").kamelet("maxAttempts");
    public static final Setting MAXIMUM_REDELIVERIES = Setting.integer("outbox.redelivery.maximum-redeliveries",
            "3", 0, 100, "in-process redeliveries of a failed send before the attempt counts");
    public static final Setting REDELIVERY_DELAY_MS = Setting.integer("outbox.redelivery.delay-ms", "100", 0,
            600_000, "first redelivery's delay, in ms");
    public static final Setting REDELIVERY_BACKOFF_MULTIPLIER = new Setting("outbox.redelivery.backoff-multiplier",
            DECIMAL, "2", 1, 100, List.of(), "multiplier of the redelivery delay after each redelivery", null);
    public static final Setting BACKOFF_INITIAL = Setting.of("outbox.backoff.initial", DURATION, "PT5S",
            "delay before the next attempt after the first failed one, doubling with each attempt")
            .kamelet("backoffSeconds");
    public static final Setting BACKOFF_MAX = Setting.of("outbox.backoff.max", DURATION, "PT10M",
            "longest delay between two attempts").kamelet("maxBackoffSeconds");
    public static final Setting FAILED_BLOCKS_KEY = Setting.of("outbox.failed-blocks-key", BOOLEAN, "false",
            "true: a FAILED event holds back later events of its key until it is replayed or deleted");
    public static final Setting SCHEMAS_DIR = Setting.of("outbox.schemas-dir", OPTIONAL_TEXT, "",
            "directory (relative to the working directory) of JSON Schema files, "
                    + "<aggregate_type>/<event_type>.schema.json");
    public static final Setting RETENTION = Setting.of("outbox.retention", DURATION, "P7D",
            "how long PUBLISHED rows are kept");
    public static final Setting RETENTION_INTERVAL_MS = Setting.integer("outbox.retention.interval-ms", "600000",
            1_000, Integer.MAX_VALUE, "how often the retention janitor runs, in ms");
    public static final Setting RETENTION_BATCH_SIZE = Setting.integer("outbox.retention.batch-size", "5000", 1,
            1_000_000, "rows deleted (or archived) per statement");
    public static final Setting RETENTION_MODE = Setting.choice("outbox.retention.mode",
            RelaySettings.RetentionMode.DELETE, "what retention does with published rows past outbox.retention");
    public static final Setting ARCHIVE_RETENTION = Setting.of("outbox.archive.retention", OPTIONAL_DURATION, "",
            "how long archived rows are kept, counted from when they were archived");
    public static final Setting ROUTES_DIR = Setting.of("outbox.routes-dir", TEXT, "routes",
            "directory (relative to the working directory) of extra YAML routes");
    public static final Setting METRICS_REFRESH_MS = Setting.integer("outbox.metrics.refresh-ms", "10000", 100,
            3_600_000, "how often the backlog gauges are read from the table, in ms");
    public static final Setting HEALTH_PROBE_INTERVAL_MS = Setting.integer("outbox.health.probe-interval-ms", "5000",
            100, 600_000, "how often the readiness checks probe the database and the broker, in ms");
    public static final Setting CONSOLE_VIEWERS = Setting.of("outbox.console.viewers", OPTIONAL_TEXT, "",
            "htpasswd file (bcrypt) of the console's viewers, who read");
    public static final Setting CONSOLE_OPERATORS = Setting.of("outbox.console.operators", OPTIONAL_TEXT, "",
            "htpasswd file (bcrypt) of the console's operators, who may also replay");
    public static final Setting INBOX_TABLE = Setting.of("inbox.table", TEXT, "inbox",
            "inbox table, optionally schema-qualified");
    public static final Setting INBOX_MIGRATE = Setting.of("inbox.schema.migrate", BOOLEAN, "true",
            "create and upgrade the inbox table when a consumer first uses it");
    public static final Setting INBOX_RETENTION = Setting.of("inbox.retention", DURATION, "P7D",
            "how long a consumed message's id is kept");

    /**
     * The defaults that differ by database, of the settings whose default above is empty (docs/settings.md gives each).
     * outbox.wake-up.min-interval-ms: MariaDB's claim (a stored procedure, statements prepared per call) costs more per
     * claim than PostgreSQL's, so claims a little less often: 10 ms kept its steady p99 at 2,000 events/s to 42-45 ms
     * (20 ms: 53-61, the look's wait was the tail), with 8 writers at 0.94-1.09x and 32 at 1.05-1.09x their rate
     * beside the plain relay, as with 20 ms (docs/BENCHMARKS.md, issue 33, the session of 2026-11-30 07:45). On
     * PostgreSQL 5 ms keeps the steady p50 at 5 ms.
     */
    static final Map<Setting, Map<Database, String>> DATABASE_DEFAULTS = Map.of(
            WAKE_UP_MIN_INTERVAL_MS, Map.of(Database.POSTGRESQL, "5", Database.MARIADB, "10"));

    /** The setting's default per database, when it differs by database (its default above is then empty). */
    public static Map<Database, String> databaseDefaults(Setting setting) {
        return DATABASE_DEFAULTS.getOrDefault(setting, Map.of());
    }

    /** Every setting, in docs/settings.md's order. */
    public static final List<Setting> ALL = List.of(DB_URL, DB_USER, DB_PASSWORD, DB_POOL_SIZE, TABLE, MIGRATE,
            ENDPOINT, KAFKA_BROKERS, JMS_BROKER_URL, AMQP_BROKER_URL, SOURCE, BATCH_SIZE, CONCURRENT_CLAIMS, PARTITIONS,
            HEARTBEAT, STALE_AFTER, LEASE, WAKE_UP, WAKE_UP_MIN_INTERVAL_MS, WAKE_UP_MAX_INTERVAL_MS, POLL_DELAY_MS,
            INSTANCE_ID, MAX_ATTEMPTS, MAXIMUM_REDELIVERIES, REDELIVERY_DELAY_MS, REDELIVERY_BACKOFF_MULTIPLIER,
            BACKOFF_INITIAL, BACKOFF_MAX, FAILED_BLOCKS_KEY, SCHEMAS_DIR, RETENTION, RETENTION_INTERVAL_MS,
            RETENTION_BATCH_SIZE, RETENTION_MODE, ARCHIVE_RETENTION, INBOX_TABLE, INBOX_MIGRATE, INBOX_RETENTION,
            ROUTES_DIR, METRICS_REFRESH_MS, HEALTH_PROBE_INTERVAL_MS, CONSOLE_VIEWERS, CONSOLE_OPERATORS);

    private SettingsCatalogue() {
    }
}
