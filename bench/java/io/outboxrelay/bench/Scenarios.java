package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The benchmark scenarios. Each returns its figures as an ordered map (one JSON line, one table row). All run
 * against the machine's PostgreSQL, a real Kafka broker and the packaged relay jar as its own process.
 */
final class Scenarios {

    private final BenchEnvironment env;

    Scenarios(BenchEnvironment env) {
        this.env = env;
    }

    /** Pre-inserted events (not timed), then one relay drains them: events/s, peak RSS, CPU per event. */
    Map<String, Object> drain(int events) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics("drain" + suffix());
            BenchEnvironment.insertEvents(db, types, events);
            RelayProcess relay = env.startRelay(db, Map.of());
            try {
                double cpuStart = BenchEnvironment.cpuSeconds(relay.pid());
                long start = System.nanoTime();
                // polls "is anything left" rather than counting, so the probe costs the database little
                while (db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'PENDING' LIMIT 1) p") > 0
                        || env.recordsIn(types) < events) {
                    pause(200);
                    if (System.nanoTime() - start > Duration.ofMinutes(10).toNanos()) {
                        throw new IllegalStateException("drain did not finish in 10 minutes");
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                double cpu = BenchEnvironment.cpuSeconds(relay.pid()) - cpuStart;
                Map<String, Object> r = result("drain");
                r.put("events", events);
                r.put("seconds", round(seconds));
                r.put("events_per_s", Math.round(events / seconds));
                r.put("relay_cpu_s", round(cpu));
                r.put("cpu_us_per_event", round(cpu * 1e6 / events));
                r.put("relay_peak_rss_mb", Math.round(BenchEnvironment.peakRssMb(relay.pid())));
                r.put("records_in_kafka", env.recordsIn(types));
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    /**
     * A writer commits {@code rate} events/s in single-row transactions while the relay runs; latency per event is
     * the broker's append timestamp (LogAppendTime topics) minus the writer's commit time. The first
     * {@code warmupSeconds} of writing are not measured: a relay runs for days, not from a cold JVM.
     */
    Map<String, Object> steady(int rate, int seconds, int warmupSeconds) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics("steady" + suffix());
            RelayProcess relay = env.startRelay(db, Map.of());
            Map<String, Long> committedAt = new ConcurrentHashMap<>();
            long maxBacklog = 0;
            try {
                int writers = 4;
                List<Thread> threads = new ArrayList<>();
                long start = System.nanoTime();
                for (int w = 0; w < writers; w++) {
                    Thread t = new Thread(
                            () -> write(db, types, rate / writers, warmupSeconds + seconds, start, committedAt));
                    threads.add(t);
                    t.start();
                }
                while (threads.stream().anyMatch(Thread::isAlive)) {
                    if (System.nanoTime() - start > warmupSeconds * 1_000_000_000L) {
                        maxBacklog = Math.max(maxBacklog,
                                db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'"));
                    }
                    pause(500);
                }
                long written = committedAt.size();
                long drainStart = System.nanoTime();
                while (db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'") > 0) {
                    pause(100);
                }
                double tail = (System.nanoTime() - drainStart) / 1e9;

                long[] latencies = new long[(int) written];
                // every event's latency by the 10-second slice its commit fell in, warm-up included
                List<List<Long>> slices = new ArrayList<>();
                long firstCommit = committedAt.values().stream().mapToLong(Long::longValue).min().orElse(0);
                int n = 0;
                for (String type : types) {
                    for (ConsumerRecord<String, byte[]> record : SharedKafka.read(env.kafka.bootstrapServers(),
                            "outbox.event." + type, (int) (written / types.length), Duration.ofSeconds(60))) {
                        Long committed = committedAt.get(SharedKafka.headers(record).get("ce_id"));
                        if (committed != null && n < latencies.length) {
                            if (committed - firstCommit >= warmupSeconds * 1000L) {
                                latencies[n++] = record.timestamp() - committed;
                            }
                            int slice = (int) ((committed - firstCommit) / 10_000);
                            while (slices.size() <= slice) {
                                slices.add(new ArrayList<>());
                            }
                            slices.get(slice).add(record.timestamp() - committed);
                        }
                    }
                }
                long[] sorted = Arrays.copyOf(latencies, n);
                Arrays.sort(sorted);
                Map<String, Object> r = result("steady");
                r.put("target_rate", rate);
                r.put("warmup_s", warmupSeconds);
                r.put("seconds", seconds);
                r.put("written", written);
                r.put("achieved_rate", Math.round(written / (double) (warmupSeconds + seconds)));
                r.put("measured", n);
                r.put("p50_ms", percentile(sorted, 0.50));
                r.put("p95_ms", percentile(sorted, 0.95));
                r.put("p99_ms", percentile(sorted, 0.99));
                r.put("max_ms", sorted.length == 0 ? -1 : sorted[sorted.length - 1]);
                r.put("p99_ms_by_10s", slices.stream()
                        .map(slice -> percentile(slice.stream().mapToLong(Long::longValue).sorted().toArray(), 0.99))
                        .toList());
                r.put("max_backlog", maxBacklog);
                r.put("drained_after_writer_s", round(tail));
                r.put("kept_up", maxBacklog < rate && tail < 1.0);
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    private static void write(TestDatabase db, String[] types, int rate, int seconds, long start,
            Map<String, Long> committedAt) {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES (?, ?, ?, 'Updated', ?::jsonb)")) {
            long total = (long) rate * seconds;
            for (long i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                UUID id = UUID.randomUUID();
                int key = ThreadLocalRandom.current().nextInt(BenchEnvironment.KEYS);
                ps.setObject(1, id);
                ps.setString(2, types[key % types.length]);
                ps.setString(3, "key-" + key);
                ps.setString(4, "{\"id\": " + i + ", \"customer\": \"customer-" + key + "\", \"status\": \"CONFIRMED\", "
                        + "\"total\": 123.45, \"lines\": [{\"sku\": \"SKU-1\", \"qty\": 2}], \"note\": \"" + "x".repeat(150) + "\"}");
                ps.executeUpdate();
                committedAt.put(id.toString(), System.currentTimeMillis());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** No events: the relay's CPU and the transactions it runs in its database. */
    Map<String, Object> idle(int seconds) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            RelayProcess relay = env.startRelay(db, Map.of());
            try {
                pause(5_000);
                String name = db.url().substring(db.url().lastIndexOf('/') + 1);
                long tx0 = transactions(name);
                double cpu0 = BenchEnvironment.cpuSeconds(relay.pid());
                pause(seconds * 1000L);
                long tx1 = transactions(name);
                double cpu1 = BenchEnvironment.cpuSeconds(relay.pid());
                Map<String, Object> r = result("idle");
                r.put("seconds", seconds);
                r.put("queries_per_s", round((tx1 - tx0) / (double) seconds));
                r.put("cpu_percent_of_core", round((cpu1 - cpu0) * 100 / seconds));
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    private static long transactions(String database) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "")) {
            c.createStatement().execute("SELECT pg_stat_clear_snapshot()");
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
                ps.setString(1, database);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }
    }

    /** The raw Kafka producer rate for the same records (acks=all, idempotent, the relay's batching settings). */
    Map<String, Object> kafkaLimit(int events) throws Exception {
        String topic = "outbox.event.limit" + suffix();
        env.kafka.createTopic(topic, 3, Map.of());
        byte[] payload = ("{\"id\": 1, \"customer\": \"customer-1\", \"status\": \"CONFIRMED\", \"total\": 123.45, "
                + "\"lines\": [{\"sku\": \"SKU-1\", \"qty\": 2}], \"note\": \"" + "x".repeat(150) + "\"}").getBytes();
        try (KafkaProducer<String, byte[]> producer = env.producer()) {
            long start = System.nanoTime();
            Future<?> last = null;
            for (int i = 0; i < events; i++) {
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, "key-" + (i % BenchEnvironment.KEYS), payload);
                for (String h : new String[] {"ce_id", "ce_type", "ce_source", "ce_subject", "ce_time", "ce_specversion",
                        "ce_aggregatetype", "content-type"}) {
                    record.headers().add(h, UUID.randomUUID().toString().getBytes());
                }
                last = producer.send(record);
            }
            producer.flush();
            last.get();
            return rate("limit_kafka", events, start);
        }
    }

    /** The raw rate of the relay's own claim and mark statements on the same rows, with no broker. */
    Map<String, Object> databaseLimit(int events) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = {"a", "b", "c"};
            BenchEnvironment.insertEvents(db, types, events);
            String claim = sql("claim");
            String mark = sql("mark-published").replace(":#${body.published}", "?");
            int claimed = 0;
            long start = System.nanoTime();
            try (Connection c = db.connect(); PreparedStatement claimPs = c.prepareStatement(claim);
                    PreparedStatement markPs = c.prepareStatement(mark)) {
                // the relay's session setting (RelayConfiguration): no JIT for its short statements
                try (var jit = c.createStatement()) {
                    jit.execute("SET jit = off");
                }
                while (true) {
                    List<String> ids = new ArrayList<>();
                    try (ResultSet rs = claimPs.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getString("id"));
                        }
                    }
                    if (ids.isEmpty()) {
                        break;
                    }
                    claimed += ids.size();
                    markPs.setObject(1, ids.toArray(new String[0]));
                    markPs.executeUpdate();
                }
            }
            return rate("limit_postgres", claimed, start);
        }
    }

    /** The relay's SQL with its default settings substituted, as the relay resolves it. */
    private static String sql(String name) throws Exception {
        String text;
        try (var in = Scenarios.class.getClassLoader().getResourceAsStream("sql/" + name + ".sql")) {
            text = new String(in.readAllBytes());
        }
        Map<String, String> values = Map.of("outbox.table", "outbox",
                "outbox.batch-size", RelaySettingsFile.get("outbox.batch-size", "1000"),
                "outbox.claim.run-length", RelaySettingsFile.get("outbox.claim.run-length", "10"),
                "outbox.failed-blocks-key", "false",
                "outbox.instance-id", "bench",
                "outbox.lease", "PT60S");
        for (Map.Entry<String, String> v : values.entrySet()) {
            text = text.replace("{{" + v.getKey() + "}}", v.getValue());
        }
        return text;
    }

    /**
     * The seeds' naive loop: in a transaction, claim 100 rows FOR UPDATE SKIP LOCKED, send each synchronously, update
     * each row on its own, commit.
     */
    Map<String, Object> naive(int events) throws Exception {
        try (TestDatabase db = env.databaseWithSchema(); KafkaProducer<String, byte[]> producer = env.producer("0")) {
            String[] types = env.createTopics("naive" + suffix());
            BenchEnvironment.insertEvents(db, types, events);
            int sent = 0;
            long start = System.nanoTime();
            try (Connection c = db.connect()) {
                c.setAutoCommit(false);
                try (PreparedStatement claim = c.prepareStatement("SELECT id, aggregate_type, aggregate_id, payload::text "
                        + "FROM outbox WHERE status = 'PENDING' ORDER BY seq LIMIT 100 FOR UPDATE SKIP LOCKED");
                        PreparedStatement mark = c.prepareStatement(
                                "UPDATE outbox SET status = 'PUBLISHED', published_at = now() WHERE id = ?")) {
                    while (true) {
                        int batch = 0;
                        try (ResultSet rs = claim.executeQuery()) {
                            while (rs.next()) {
                                producer.send(new ProducerRecord<>("outbox.event." + rs.getString(2), rs.getString(3),
                                        rs.getString(4).getBytes())).get();
                                mark.setObject(1, rs.getObject(1));
                                mark.executeUpdate();
                                batch++;
                            }
                        }
                        c.commit();
                        if (batch == 0) {
                            break;
                        }
                        sent += batch;
                    }
                }
            }
            return rate("naive", sent, start);
        }
    }

    /** A throughput result: events handled since {@code startNanos}, per second. */
    private static Map<String, Object> rate(String scenario, long events, long startNanos) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        Map<String, Object> r = result(scenario);
        r.put("events", events);
        r.put("events_per_s", Math.round(events / seconds));
        return r;
    }

    private static Map<String, Object> result(String scenario) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("scenario", scenario);
        return r;
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 6);
    }

    private static long percentile(long[] sorted, double p) {
        return sorted.length == 0 ? -1 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }

    private static void pause(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }
}
