package io.outboxrelay.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.support.KafkaBroker;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What the scenarios share: the broker, databases with an outbox, relay processes and their /proc figures. */
final class BenchEnvironment {

    static final int KEYS = 1_000;
    static final String[] TYPES = {"order", "customer", "invoice"};

    /**
     * The README's run command maps the class-data archive the build makes beside the jar (AppCDS); the relays here
     * are started the same way (RelayProcess adds the -Xmx256m the README's command has too).
     */
    static final String CLASS_DATA_ARCHIVE = "-XX:SharedArchiveFile="
            + System.getProperty("relay.jar", "target/outbox-relay.jar").replaceAll("\\.jar$", ".jsa");

    final KafkaBroker kafka;
    final BenchDatabase database;

    BenchEnvironment(KafkaBroker kafka, BenchDatabase database) {
        this.kafka = kafka;
        this.database = database;
    }

    /** A fresh database with the relay's schema (applied by starting and stopping a relay once). */
    TestDatabase databaseWithSchema() {
        TestDatabase db = database.create();
        RelayProcess relay = startRelay(db, Map.of());
        stop(relay);
        return db;
    }

    /** The benchmarks' plain-Java relay (PlainRelay) with the relay's batch size and producer settings. */
    RelayProcess startPlainRelay(TestDatabase db) {
        RelayProcess relay = RelayProcess.startMain(PlainRelay.class.getName(), List.of(db.url(), db.user(),
                kafka.bootstrapServers(), RelaySettingsFile.get("outbox.batch-size", "1000"),
                RelaySettingsFile.get("camel.component.kafka.linger-ms", "0"),
                RelaySettingsFile.get("camel.component.kafka.producer-batch-size", "16384"),
                RelaySettingsFile.get("camel.component.kafka.compression-codec", "none")), Map.of());
        relay.awaitOutput("plain relay started", Duration.ofSeconds(60));
        return relay;
    }

    RelayProcess startRelay(TestDatabase db, Map<String, String> extra) {
        return startRelay(db, extra, 0);
    }

    /** The same with its management server on the given port (0: any free one). */
    RelayProcess startRelay(TestDatabase db, Map<String, String> extra, int managementPort) {
        Map<String, String> env = new HashMap<>(extra);
        // e.g. RELAY_JAVA_OPTIONS=-XX:StartFlightRecording=filename=target/drain.jfr bench/run --only drain
        String relayOptions = System.getenv("RELAY_JAVA_OPTIONS");
        if (relayOptions != null) {
            env.put("JAVA_TOOL_OPTIONS", relayOptions);
        }
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_DB_USER", db.user());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", kafka.bootstrapServers());
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        RelayProcess relay = RelayProcess.startJar(env, CLASS_DATA_ARCHIVE,
                "-Dcamel.management.port=" + managementPort);
        relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(120));
        return relay;
    }

    /** The relay jar started without waiting for its start line (the startup scenario times it itself). */
    RelayProcess startRelayUnwatched(TestDatabase db) {
        return startRelayUnwatched(db, Map.of());
    }

    RelayProcess startRelayUnwatched(TestDatabase db, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(extra);
        env.put("OUTBOX_DB_URL", db.url());
        env.put("OUTBOX_DB_USER", db.user());
        env.put("CAMEL_COMPONENT_KAFKA_BROKERS", kafka.bootstrapServers());
        env.put("OUTBOX_ROUTES_DIR", "target/no-extra-routes");
        return RelayProcess.startJar(env, CLASS_DATA_ARCHIVE, "-Dcamel.management.port=0");
    }

    static void stop(RelayProcess relay) {
        relay.terminate();
        relay.waitForExit(Duration.ofSeconds(60));
        relay.close();
    }

    /** Topics per aggregate type of a run, timestamped by the broker at append (≈ acknowledgement) time. */
    String[] createTopics(String prefix) {
        String[] types = new String[TYPES.length];
        for (int i = 0; i < TYPES.length; i++) {
            types[i] = prefix + TYPES[i];
            kafka.createTopic("outbox.event." + types[i], 3, Map.of("message.timestamp.type", "LogAppendTime"));
        }
        return types;
    }

    /** Inserts events of about 300 bytes of JSON, round-robin over 1,000 keys and the given aggregate types. */
    static void insertEvents(TestDatabase db, String[] types, int events) {
        insertEvents(db, types, events, KEYS);
    }

    /** The same over the given number of keys (each key stays with one aggregate type). */
    static void insertEvents(TestDatabase db, String[] types, int events, int keys) {
        insertEventsUnanalysed(db, types, events, keys);
        BenchDatabase.analyze(db);
    }

    /** Without the ANALYZE after (a relay already running starts on them at the commit). */
    static void insertEventsUnanalysed(TestDatabase db, String[] types, int events, int keys) {
        BenchDatabase.insertEvents(db, types, events, keys);
    }

    /**
     * A schema for the events of {@link #insertEventsUnanalysed} (every field required, typed, the lines' items too)
     * for each aggregate type, as outbox.schemas-dir wants it: the directory's absolute path.
     */
    static String writeSchemas(String[] types) {
        String schema = """
                {
                  "$schema": "https://json-schema.org/draft/2020-12/schema",
                  "$id": "https://example.com/schemas/Updated.json",
                  "type": "object",
                  "required": ["id", "customer", "status", "currency", "total", "lines", "note"],
                  "additionalProperties": false,
                  "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "customer": {"type": "string", "pattern": "^customer-[0-9]+$"},
                    "status": {"enum": ["NEW", "CONFIRMED", "SHIPPED", "CANCELLED"]},
                    "currency": {"type": "string", "minLength": 3, "maxLength": 3},
                    "total": {"type": "number", "minimum": 0},
                    "lines": {
                      "type": "array",
                      "minItems": 1,
                      "items": {
                        "type": "object",
                        "required": ["sku", "qty", "price"],
                        "properties": {
                          "sku": {"type": "string"},
                          "qty": {"type": "integer", "minimum": 1},
                          "price": {"type": "number", "minimum": 0}
                        }
                      }
                    },
                    "note": {"type": "string", "maxLength": 1000}
                  }
                }""";
        try {
            Path dir = Files.createTempDirectory("bench-schemas");
            for (String type : types) {
                Path file = dir.resolve(type).resolve("Updated.schema.json");
                Files.createDirectories(file.getParent());
                Files.writeString(file, schema);
            }
            return dir.toAbsolutePath().toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    long recordsIn(String[] types) throws Exception {
        try (Admin admin = kafka.admin()) {
            Map<TopicPartition, OffsetSpec> request = new HashMap<>();
            for (String type : types) {
                String topic = "outbox.event." + type;
                admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                        .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            }
            return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(info -> info.offset()).sum();
        }
    }

    /** The producer settings the relay itself uses (application.properties), for the raw limit. */
    KafkaProducer<String, byte[]> producer() {
        return producer(RelaySettingsFile.get("camel.component.kafka.linger-ms", "0"));
    }

    /** A producer with the relay's settings but the given linger.ms (the naive baseline sends one record at a time). */
    KafkaProducer<String, byte[]> producer(String lingerMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG,
                RelaySettingsFile.get("camel.component.kafka.producer-batch-size", "16384"));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG,
                RelaySettingsFile.get("camel.component.kafka.compression-codec", "none"));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    /** CPU seconds (user + system) the process has used so far. */
    static double cpuSeconds(long pid) throws Exception {
        return cpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    }

    /** utime + stime of a /proc stat line (a process's or a thread's). */
    private static double cpuSeconds(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks / 100.0;
    }

    /**
     * CPU seconds of a JVM's JIT compiler threads (C1 and C2) so far: how much of a relay's CPU goes to compiling
     * its code rather than running it. (A compiler thread the JVM ended takes its seconds with it.)
     */
    static double compilerCpuSeconds(long pid) throws Exception {
        double seconds = 0;
        try (var threads = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                try {
                    String stat = Files.readString(thread.resolve("stat"));
                    if (stat.contains("(C1 CompilerThre") || stat.contains("(C2 CompilerThre")) {
                        seconds += cpuSeconds(stat);
                    }
                } catch (java.io.IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return seconds;
    }

    /** CPU seconds of every PostgreSQL server process running now (backends, autovacuum, checkpointer, ...), by pid. */
    static Map<Long, Double> postgresCpuSeconds() throws Exception {
        Map<Long, Double> cpu = new java.util.HashMap<>();
        try (var processes = Files.list(Path.of("/proc"))) {
            for (Path dir : (Iterable<Path>) processes::iterator) {
                String name = dir.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    if (Files.readString(dir.resolve("stat")).contains("(postgres)")) {
                        cpu.put(Long.parseLong(name), cpuSeconds(Long.parseLong(name)));
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    // the process ended meanwhile
                }
            }
        }
        return cpu;
    }

    /** CPU seconds of the server processes connected to one database now (pg_stat_activity), by pid. */
    static Map<Long, Double> backendCpuSeconds(String database) throws Exception {
        Map<Long, Double> cpu = new java.util.HashMap<>();
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
                java.sql.PreparedStatement ps = c.prepareStatement(
                        "SELECT pid FROM pg_stat_activity WHERE datname = ?")) {
            ps.setString(1, database);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long pid = rs.getLong(1);
                    try {
                        cpu.put(pid, cpuSeconds(pid));
                    } catch (java.io.IOException e) {
                        // the backend ended meanwhile
                    }
                }
            }
        }
        return cpu;
    }

    /** What the backends of one database spent between two readings (those connected at the end). */
    static double backendCpuSince(String database, Map<Long, Double> start) throws Exception {
        double spent = 0;
        for (Map.Entry<Long, Double> backend : backendCpuSeconds(database).entrySet()) {
            spent += backend.getValue() - start.getOrDefault(backend.getKey(), 0.0);
        }
        return spent;
    }

    /** Peak resident set size of the process, in MB. */
    static double peakRssMb(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        return -1;
    }
}
