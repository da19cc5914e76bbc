package io.outboxrelay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

import io.outboxrelay.settings.Database;
import io.outboxrelay.support.OtlpReceiver;
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

    /** Events each drain relay sends before the measured drain, by default (--drain-warmup). */
    static final int DRAIN_WARMUP = 200_000;

    static final int HOT_KEYS = 10;


    /** The insert trigger of the relay's notify days (V2, dropped by V9), for outbox.wake-up=notify. */
    private static final List<String> NOTIFY_TRIGGER = List.of("""
            CREATE FUNCTION outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('outbox', ''); RETURN NULL; END $$""", """
            CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION outbox_notify()""");

    private final BenchEnvironment env;
    private final int drainWarmup;
    private final int drainSteadyWarmupSeconds;

    Scenarios(BenchEnvironment env, int drainWarmup, int drainSteadyWarmupSeconds) {
        this.env = env;
        this.drainWarmup = drainWarmup;
        this.drainSteadyWarmupSeconds = drainSteadyWarmupSeconds;
    }

    int drainWarmup() {
        return drainWarmup;
    }

    /**
     * Pre-inserted events over 1,000 keys (not timed), then one relay drains them: events/s, peak RSS, CPU per
     * event.
     */
    Map<String, Object> drain(int events) throws Exception {
        return drain(env.database.scenario("drain"), events, BenchEnvironment.KEYS,
                (db, types) -> env.startRelay(db, Map.of()));
    }

    /** The same over only 10 keys: hot aggregates. */
    Map<String, Object> drainHotKeys(int events) throws Exception {
        return drain("drain_hot_keys", events, HOT_KEYS, (db, types) -> env.startRelay(db, Map.of()));
    }

    /** The plain-Java batched relay (PlainRelay) on the same events, as its own process. */
    Map<String, Object> plainDrain(int events) throws Exception {
        return drain(env.database.scenario("plain_drain"), events, BenchEnvironment.KEYS,
                (db, types) -> env.startPlainRelay(db));
    }

    Map<String, Object> plainDrainHotKeys(int events) throws Exception {
        return drain("plain_drain_hot_keys", events, HOT_KEYS, (db, types) -> env.startPlainRelay(db));
    }

    /**
     * The drain without event schemas and with a schema for every event type of the bench (outbox.schemas-dir), each
     * on a fresh database; the order alternates with the run, so that neither always drains on the warmer machine.
     */
    List<Map<String, Object>> drainSchemas(int events, boolean schemasFirst) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (boolean schemas : schemasFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            results.add(schemas
                    ? drain("drain_schemas_on", events, BenchEnvironment.KEYS, (db, types) -> env.startRelay(db,
                            Map.of("OUTBOX_SCHEMAS_DIR", BenchEnvironment.writeSchemas(types))))
                    : drain("drain_schemas_off", events, BenchEnvironment.KEYS,
                            (db, types) -> env.startRelay(db, Map.of())));
        }
        return results;
    }

    /**
     * The drain with tracing off and on (OpenTelemetry's environment: every span sampled, OTLP/HTTP to a receiver in
     * this process that decodes and counts them), each on a fresh database, the order alternating with the run.
     */
    List<Map<String, Object>> drainTracing(int events, boolean tracingFirst) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (boolean tracing : tracingFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            if (!tracing) {
                results.add(drain("drain_tracing_off", events, BenchEnvironment.KEYS,
                        (db, types) -> env.startRelay(db, Map.of())));
                continue;
            }
            try (OtlpReceiver receiver = OtlpReceiver.counting()) {
                // the relay's own span queue and export batch (tracing.Tracing's defaults)
                Map<String, String> otel = receiver.environment("bench-relay");
                Map<String, Object> r = drain("drain_tracing_on", events, BenchEnvironment.KEYS,
                        (db, types) -> env.startRelay(db, otel));
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (receiver.count() < drainWarmup + events && System.nanoTime() < deadline) {
                    pause(100);
                }
                r.put("spans_received", receiver.count() - drainWarmup);
                results.add(r);
            }
        }
        return results;
    }

    private Map<String, Object> drain(String scenario, int events, int keys,
            java.util.function.BiFunction<TestDatabase, String[], RelayProcess> launcher) throws Exception {
        return drain(scenario, events, keys, (db, types) -> { }, launcher, relay -> null);
    }

    /** Something that runs beside a timed drain (started when the drain starts) and reports figures of its own. */
    interface DrainCompanion {
        Map<String, Object> stop() throws Exception;
    }

    /**
     * The drain, with rows inserted before the warm-up (backdrop) and a companion running beside the timed part
     * (null: none).
     */
    Map<String, Object> drain(String scenario, int events, int keys,
            java.util.function.BiConsumer<TestDatabase, String[]> backdrop,
            java.util.function.BiFunction<TestDatabase, String[], RelayProcess> launcher,
            java.util.function.Function<RelayProcess, DrainCompanion> beside) throws Exception {
        double purgeWait = env.database.awaitPurge();
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics(scenario.replace("_", "") + suffix());
            backdrop.accept(db, types);
            // a relay runs for days: it first drains a warm-up backlog (JIT, connections, producers), untimed
            BenchEnvironment.insertEvents(db, types, drainWarmup, keys);
            RelayProcess relay = launcher.apply(db, types);
            try {
                awaitDrained(db, types, drainWarmup);
                int warmedUp = drainWarmup + steadyWarmup(db, types);
                // timed from the insert's commit, when the relay can see the events (not analysed: it is running)
                BenchEnvironment.insertEventsUnanalysed(db, types, events, keys);
                DrainCompanion companion = beside.apply(relay);
                double cpuStart = BenchEnvironment.cpuSeconds(relay.pid());
                double jitStart = BenchEnvironment.compilerCpuSeconds(relay.pid());
                Map<Long, Double> serverStart = env.database.serverCpuSeconds();
                long start = System.nanoTime();
                // polls "is anything left" rather than counting, so the probe costs the database little
                while (db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'PENDING' LIMIT 1) p") > 0
                        || env.recordsIn(types) < warmedUp + events) {
                    pause(200);
                    if (System.nanoTime() - start > Duration.ofMinutes(10).toNanos()) {
                        throw new IllegalStateException("drain did not finish in 10 minutes");
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                double cpu = BenchEnvironment.cpuSeconds(relay.pid()) - cpuStart;
                double jit = BenchEnvironment.compilerCpuSeconds(relay.pid()) - jitStart;
                double serverCpu = env.database.serverCpuSince(serverStart);
                Map<String, Object> r = result(scenario);
                if (companion != null) {
                    r.putAll(companion.stop());
                }
                r.put("events", events);
                r.put("keys", keys);
                if (env.database.mariadb()) {
                    r.put("purge_wait_s", purgeWait);
                }
                if (drainSteadyWarmupSeconds > 0) {
                    r.put("steady_warmup_s", drainSteadyWarmupSeconds);
                }
                r.put("seconds", round(seconds));
                r.put("events_per_s", Math.round(events / seconds));
                r.put("relay_cpu_s", round(cpu));
                r.put("cpu_us_per_event", round(cpu * 1e6 / events));
                // the relay's C1 and C2 threads, part of relay_cpu_s: on MariaDB 1.3-1.9 s of its 4-5 s even after a
                // 600,000-event warm-up (docs/BENCHMARKS.md), so the drains' relay CPU is not all the routes' own
                r.put("relay_jit_cpu_s", round(jit));
                r.put(env.database.cpuColumn(), round(serverCpu * 1e6 / events));
                r.put("relay_peak_rss_mb", Math.round(BenchEnvironment.peakRssMb(relay.pid())));
                r.put("records_in_kafka", env.recordsIn(types) - warmedUp);
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    /**
     * After the warm-up drain, --drain-steady-warmup-seconds of steady traffic (8 writers, 2,000 single-event
     * transactions a second between them), drained before the timed drain; answers the events written. A relay that
     * has run for days has served many small claims, and code called a few times a claim reaches C2 only after many
     * of them: with none, a drain relay's C1 and C2 threads took 1.3-1.9 s of its 4-5 s CPU in the timed drain even
     * after a 600,000-event warm-up; after 60 s of steady traffic, 0.1-0.6 s (docs/BENCHMARKS.md).
     */
    private int steadyWarmup(TestDatabase db, String[] types) throws Exception {
        if (drainSteadyWarmupSeconds == 0) {
            return 0;
        }
        Map<String, Long> committed = new ConcurrentHashMap<>();
        for (Thread t : startWriters(db, types, 2_000, 8, drainSteadyWarmupSeconds, System.nanoTime(), committed)) {
            t.join();
        }
        awaitDrained(db, types, drainWarmup + committed.size());
        return committed.size();
    }

    private void awaitDrained(TestDatabase db, String[] types, int events) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'PENDING' LIMIT 1) p") > 0
                || env.recordsIn(types) < events) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("warm-up did not drain in 5 minutes");
            }
            pause(200);
        }
    }

    /**
     * From {@code java -jar} to the first event acknowledged by Kafka, with the database and the broker up and one
     * event waiting: the record's broker timestamp (LogAppendTime) minus the moment the process was started.
     */
    Map<String, Object> startup(int runs) throws Exception {
        List<Long> millis = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            try (TestDatabase db = env.databaseWithSchema()) {
                String[] types = env.createTopics("startup" + suffix());
                BenchEnvironment.insertEvents(db, types, 1);
                long started = System.currentTimeMillis();
                RelayProcess relay = env.startRelayUnwatched(db);
                try {
                    // wait on the database (cheap), not on Kafka consumers: a consumer made every few milliseconds
                    // would compete with the relay for the two cores while it starts
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") == 0
                            && System.currentTimeMillis() < deadline) {
                        pause(20);
                    }
                    String type = (String) db.query("SELECT aggregate_type FROM outbox WHERE status = 'PUBLISHED'")
                            .get(0).get("aggregate_type");
                    List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(env.kafka.bootstrapServers(),
                            "outbox.event." + type, 1, Duration.ofSeconds(10));
                    millis.add(records.get(0).timestamp() - started);
                } finally {
                    BenchEnvironment.stop(relay);
                }
            }
        }
        long[] sorted = millis.stream().mapToLong(Long::longValue).sorted().toArray();
        Map<String, Object> r = result("startup");
        r.put("runs", runs);
        r.put("start_to_first_publish_ms", millis);
        r.put("median_ms", percentile(sorted, 0.5));
        r.put("max_ms", sorted[sorted.length - 1]);
        return r;
    }

    /**
     * {@code writers} writers commit {@code rate} events/s between them in single-row transactions while the relay
     * runs; latency per event is the broker's append timestamp (LogAppendTime topics) minus the writer's commit time.
     * The first {@code warmupSeconds} of writing are not measured: a relay runs for days, not from a cold JVM.
     */
    Map<String, Object> steady(int rate, int seconds, int warmupSeconds, int writers) throws Exception {
        return steady(env.database.scenario("steady"), rate, seconds, warmupSeconds, writers,
                db -> env.startRelay(db, Map.of()));
    }

    /** The same with the relay watching the claim index for new events instead of the sequence (outbox.wake-up). */
    Map<String, Object> steadyClaimIndex(int rate, int seconds, int warmupSeconds, int writers) throws Exception {
        return steady("steady_claim_index", rate, seconds, warmupSeconds, writers,
                db -> env.startRelay(db, Map.of("OUTBOX_WAKE_UP", "claim-index")));
    }

    /** The same load on the plain-Java batched relay (PlainRelay): what this machine gives without the relay. */
    Map<String, Object> plainSteady(int rate, int seconds, int warmupSeconds, int writers) throws Exception {
        return steady(env.database.scenario("plain_steady"), rate, seconds, warmupSeconds, writers,
                env::startPlainRelay);
    }

    private Map<String, Object> steady(String scenario, int rate, int seconds, int warmupSeconds, int writers,
            java.util.function.Function<TestDatabase, RelayProcess> launcher) throws Exception {
        double purgeWait = env.database.awaitPurge();
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics(scenario.replace("_", "") + suffix());
            RelayProcess relay = launcher.apply(db);
            Map<String, Long> committedAt = new ConcurrentHashMap<>();
            long maxBacklog = 0;
            try {
                long start = System.nanoTime();
                List<Thread> threads = startWriters(db, types, rate, writers, warmupSeconds + seconds, start,
                        committedAt);
                long warmupEnd = start + warmupSeconds * 1_000_000_000L;
                CpuWindow window = null;
                while (threads.stream().anyMatch(Thread::isAlive)) {
                    if (window == null && System.nanoTime() >= warmupEnd) {
                        window = CpuWindow.open(env, relay.pid(), committedAt.size());
                    }
                    if (window != null) {
                        maxBacklog = Math.max(maxBacklog,
                                db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'"));
                    }
                    // wakes at the warm-up's end and as soon as the writers stop, so the CPU window is theirs
                    join(threads, window == null
                            ? Math.max(1, Math.min(500, (warmupEnd - System.nanoTime()) / 1_000_000)) : 500);
                }
                long written = committedAt.size();
                window = window == null ? CpuWindow.open(env, relay.pid(), 0) : window;
                double[] cpu = window.close(written);
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
                Map<String, Object> r = result(scenario);
                r.put("target_rate", rate);
                r.put("writers", writers);
                if (env.database.mariadb()) {
                    r.put("purge_wait_s", purgeWait);
                }
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
                r.put("relay_cpu_us_per_event", round(cpu[0]));
                r.put(env.database.cpuColumn(), round(cpu[1]));
                r.put("relay_peak_rss_mb", Math.round(BenchEnvironment.peakRssMb(relay.pid())));
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    /**
     * CPU spent between the end of a warm-up and the end of the writing, by the relay process (none: pid 0) and its
     * JIT compiler threads, by this JVM (the writers), by the Kafka broker's process and by the database server
     * (PostgreSQL: every server process, the writers' backends, the relay's, autovacuum, WAL writer, checkpointer;
     * MariaDB: mariadbd). The bench's own probes (the backlog count) are in the server's figure, for every relay alike.
     */
    private record CpuWindow(BenchDatabase database, long pid, long brokerPid, long eventsAtOpen, double relayCpu,
            double relayCompilerCpu, double writersCpu, double brokerCpu, Map<Long, Double> serverCpu) {

        static CpuWindow open(BenchEnvironment env, long pid, long events) throws Exception {
            long brokerPid = env.kafka.pid();
            return new CpuWindow(env.database, pid, brokerPid, events, pid == 0 ? 0 : BenchEnvironment.cpuSeconds(pid),
                    pid == 0 ? 0 : BenchEnvironment.compilerCpuSeconds(pid), thisJvmCpu(),
                    BenchEnvironment.cpuSeconds(brokerPid), env.database.serverCpuSeconds());
        }

        /** Relay and database server CPU microseconds per event committed in the window. */
        double[] close(long eventsAtClose) throws Exception {
            double relay = BenchEnvironment.cpuSeconds(pid) - relayCpu;
            double server = database.serverCpuSince(serverCpu);
            long events = Math.max(1, eventsAtClose - eventsAtOpen);
            return new double[] {relay * 1e6 / events, server * 1e6 / events};
        }

        /** The cores each process spent over the window's {@code seconds}, as the writers rows show them. */
        Map<String, Object> cores(int seconds) throws Exception {
            Map<String, Object> cores = new LinkedHashMap<>();
            cores.put("db_cores", round(database.serverCpuSince(serverCpu) / seconds));
            cores.put("writers_cores", round((thisJvmCpu() - writersCpu) / seconds));
            cores.put("kafka_cores", round((BenchEnvironment.cpuSeconds(brokerPid) - brokerCpu) / seconds));
            if (pid != 0) {
                cores.put("relay_cores", round((BenchEnvironment.cpuSeconds(pid) - relayCpu) / seconds));
                cores.put("relay_jit_cores",
                        round((BenchEnvironment.compilerCpuSeconds(pid) - relayCompilerCpu) / seconds));
            }
            return cores;
        }

        private static double thisJvmCpu() throws Exception {
            return BenchEnvironment.cpuSeconds(ProcessHandle.current().pid());
        }
    }

    /** Waits up to {@code millis} for every thread to end; returns sooner when they have. */
    private static void join(List<Thread> threads, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        for (Thread t : threads) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                return;
            }
            t.join(left);
        }
    }

    /** {@code writers} threads writing {@code rate} single-event transactions a second between them, from start. */
    private static List<Thread> startWriters(TestDatabase db, String[] types, int rate, int writers, int seconds,
            long start, Map<String, Long> committedAt) {
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Thread t = new Thread(() -> write(db, types, rate / writers, seconds, start, committedAt));
            threads.add(t);
            t.start();
        }
        return threads;
    }

    private static void write(TestDatabase db, String[] types, int rate, int seconds, long start,
            Map<String, Long> committedAt) {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) "
                        + "VALUES (?, ?, ?, 'Updated', " + db.json() + ")")) {
            long total = (long) rate * seconds;
            for (long i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                UUID id = UUID.randomUUID();
                int key = ThreadLocalRandom.current().nextInt(BenchEnvironment.KEYS);
                // a uuid parameter on PostgreSQL; MariaDB's uuid column takes the text
                ps.setObject(1, db.database() == Database.MARIADB ? id.toString() : id);
                ps.setString(2, types[key % types.length]);
                ps.setString(3, "key-" + key);
                ps.setString(4, "{\"id\": " + i + ", \"customer\": \"customer-" + key
                        + "\", \"status\": \"CONFIRMED\", "
                        + "\"total\": 123.45, \"lines\": [{\"sku\": \"SKU-1\", \"qty\": 2}], \"note\": \""
                        + "x".repeat(150) + "\"}");
                ps.executeUpdate();
                committedAt.put(id.toString(), System.currentTimeMillis());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What a relay costs the writers: for each writer count, the commit rate and latency of writers inserting as fast
     * as they can (CommitLoad) with no relay (bare), beside the plain relay, beside the relay, and (PostgreSQL) beside
     * the relay woken by the old notify trigger, each on a fresh database. The configurations' order is reversed every
     * other writer count and run, so that none always writes on the warmer machine. The relay and notify rows carry
     * their rate as a share of bare's and plain's of the same writer count. Measured after {@code warmupSeconds} of
     * the same writing, as a relay that runs for days is past its JIT compilation.
     */
    List<Map<String, Object>> writers(List<Integer> writerCounts, List<String> configurations, int seconds,
            int warmupSeconds, int run) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (int i = 0; i < writerCounts.size(); i++) {
            int writers = writerCounts.get(i);
            List<String> order = new ArrayList<>(configurations);
            if ((run + i) % 2 == 0) {
                Collections.reverse(order);
            }
            Map<String, Map<String, Object>> byConfiguration = new LinkedHashMap<>();
            for (String configuration : order) {
                Map<String, Object> r = writers(writers, configuration, seconds, warmupSeconds);
                r.put("order", order.indexOf(configuration) + 1);
                byConfiguration.put(configuration, r);
            }
            // the relays' rows, as shares of the baselines measured
            List<String> baselines = List.of("bare", "plain");
            for (String configuration : configurations) {
                for (String base : baselines) {
                    if (!baselines.contains(configuration) && byConfiguration.containsKey(base)) {
                        Map<String, Object> r = byConfiguration.get(configuration);
                        r.put("vs_" + base, ratio(r, byConfiguration.get(base)));
                    }
                }
            }
            // rows in one order whatever the order measured (the order column says which ran when)
            configurations.forEach(c -> results.add(byConfiguration.get(c)));
        }
        return results;
    }

    private Map<String, Object> writers(int writers, String configuration, int seconds, int warmupSeconds)
            throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics("writers" + writers + configuration + suffix());
            if (configuration.equals("notify")) {
                NOTIFY_TRIGGER.forEach(db::update);
            }
            RelayProcess relay = switch (configuration) {
                case "bare" -> null;
                case "plain" -> env.startPlainRelay(db);
                case "relay" -> env.startRelay(db, Map.of());
                case "notify" -> env.startRelay(db, Map.of("OUTBOX_WAKE_UP", "notify"));
                default -> throw new IllegalArgumentException(configuration);
            };
            try {
                double settled = env.database.settle(db);
                long pid = relay == null ? 0 : relay.pid();
                Map<String, Object> cores = new LinkedHashMap<>();
                CommitLoad.Result load = CommitLoad.run(db, types, writers, warmupSeconds, seconds,
                        new CommitLoad.Window() {
                            private CpuWindow window;

                            @Override
                            public void opened() throws Exception {
                                window = CpuWindow.open(env, pid, 0);
                            }

                            @Override
                            public void closed() throws Exception {
                                cores.putAll(window.cores(seconds));
                            }
                        });
                Map<String, Object> r = result(env.database.scenario("writers_" + writers + "_" + configuration));
                r.put("writers", writers);
                r.put("configuration", configuration);
                r.put("seconds", seconds);
                r.put("warmup_s", warmupSeconds);
                r.put("settle_s", settled);
                r.put("commits", load.commits());
                r.put("commits_per_s", load.commitsPerSecond());
                r.put("p50_ms", round(percentile(load.sortedMicros(), 0.50) / 1000.0));
                r.put("p99_ms", round(percentile(load.sortedMicros(), 0.99) / 1000.0));
                // a relay that drains less leaves more of the two cores to the writers: how far behind each one was
                r.put("pending_at_end", db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'"));
                // where the two cores went in the measured seconds
                r.putAll(cores);
                return r;
            } finally {
                if (relay != null) {
                    BenchEnvironment.stop(relay);
                }
            }
        }
    }

    private static double ratio(Map<String, Object> r, Map<String, Object> base) {
        return round(((Number) r.get("commits_per_s")).doubleValue()
                / Math.max(1, ((Number) base.get("commits_per_s")).longValue()));
    }

    /** No events: the relay's CPU, the transactions it runs in its database and what PostgreSQL spends on them. */
    Map<String, Object> idle(int seconds) throws Exception {
        return idle("idle", seconds, Map.of());
    }

    /** The same with the relay watching the claim index for new events instead of the sequence (outbox.wake-up). */
    Map<String, Object> idleClaimIndex(int seconds) throws Exception {
        return idle("idle_claim_index", seconds, Map.of("OUTBOX_WAKE_UP", "claim-index"));
    }

    private Map<String, Object> idle(String scenario, int seconds, Map<String, String> relayEnvironment)
            throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            RelayProcess relay = env.startRelay(db, relayEnvironment);
            try {
                pause(5_000);
                String name = db.url().substring(db.url().lastIndexOf('/') + 1);
                long tx0 = transactions(name);
                double cpu0 = BenchEnvironment.cpuSeconds(relay.pid());
                Map<Long, Double> postgres0 = env.database.serverCpuSeconds();
                Map<Long, Double> backends0 = BenchEnvironment.backendCpuSeconds(name);
                pause(seconds * 1000L);
                // PostgreSQL first: the backend of the statistics query below must not be counted as new
                double postgresCpu = env.database.serverCpuSince(postgres0);
                double backendsCpu = BenchEnvironment.backendCpuSince(name, backends0);
                long tx1 = transactions(name);
                double cpu1 = BenchEnvironment.cpuSeconds(relay.pid());
                Map<String, Object> r = result(scenario);
                r.put("seconds", seconds);
                r.put("queries_per_s", round((tx1 - tx0) / (double) seconds));
                r.put("cpu_percent_of_core", round((cpu1 - cpu0) * 100 / seconds));
                r.put("postgres_cpu_percent_of_core", round(postgresCpu * 100 / seconds));
                // the relay's own backends only: what the relay costs PostgreSQL, whatever else the server runs
                r.put("relay_backends_cpu_percent_of_core", round(backendsCpu * 100 / seconds));
                return r;
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
    }

    private static long transactions(String database) throws Exception {
        try (Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres",
                "postgres", "")) {
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
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic,
                        "key-" + (i % BenchEnvironment.KEYS), payload);
                for (String h : new String[] {"ce_id", "ce_type", "ce_source", "ce_subject", "ce_time",
                        "ce_specversion", "ce_aggregatetype", "content-type"}) {
                    record.headers().add(h, UUID.randomUUID().toString().getBytes());
                }
                last = producer.send(record);
            }
            producer.flush();
            last.get();
            return rate("limit_kafka", events, start);
        }
    }

    /**
     * The raw rate of the relay's own statements on the same rows, with no broker and no relay: one heartbeat to own
     * every partition, then claims (sql/claim.sql, every partition, an even share of outbox.batch-size each) and marks
     * (sql/mark.sql), one after the other on one connection, in the two shapes a claim can take: the relay's
     * (autocommit: the claim writes nothing, the partitions' leases fence other instances, the mark is the one write)
     * and the row locks held until the mark (claim and mark in one transaction).
     */
    List<Map<String, Object>> databaseLimits(int events) throws Exception {
        return List.of(databaseLimit("limit_postgres", events, true),
                databaseLimit("limit_postgres_locked", events, false));
    }

    private Map<String, Object> databaseLimit(String scenario, int events, boolean autocommit) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = {"a", "b", "c"};
            BenchEnvironment.insertEvents(db, types, events);
            db.update("VACUUM ANALYZE outbox");
            int claimed = 0;
            long updatesBefore = db.count("SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox'");
            long start = System.nanoTime();
            try (Connection c = db.connect(); PreparedStatement heartbeat = c.prepareStatement(RelaySql.heartbeat());
                    PreparedStatement claim = c.prepareStatement(RelaySql.claimAll());
                    PreparedStatement mark = c.prepareStatement(RelaySql.mark())) {
                // the relay's session setting (RelayConfiguration): no JIT for its short statements
                try (var jit = c.createStatement()) {
                    jit.execute("SET jit = off");
                }
                heartbeat.executeQuery().close();
                c.setAutoCommit(autocommit);
                while (true) {
                    List<String> ids = new ArrayList<>();
                    try (ResultSet rs = claim.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getString("id"));
                        }
                    }
                    if (ids.isEmpty()) {
                        break;
                    }
                    mark.setArray(1, c.createArrayOf("text", ids.toArray()));
                    mark.executeUpdate();
                    if (!autocommit) {
                        c.commit();
                    }
                    claimed += ids.size();
                }
            }
            Map<String, Object> r = rate(scenario, claimed, start);
            pause(1_000);
            r.put("row_writes_per_event", round((db.count(
                    "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'outbox'") - updatesBefore)
                    / (double) Math.max(1, claimed)));
            return r;
        }
    }

    /**
     * Retention at scale: {@code published} PUBLISHED rows older than outbox.retention and {@code pending} PENDING
     * ones. The relay's claim statement runs five times a second (each claim given back at once, so every claim sees
     * the same backlog) for {@code quietSeconds}, then a janitor pass runs the relay's delete statement until a batch
     * comes back short, as the retention route does, while the claims go on. Reported: the delete's plan, the pass's
     * time and statements, and the claim's latency before and during the pass.
     */
    Map<String, Object> retention(int published, int pending, int quietSeconds) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            insertPublished(db, published);
            BenchEnvironment.insertEvents(db, new String[] {"a", "b", "c"}, pending);
            db.update("VACUUM ANALYZE outbox");
            String delete = RelaySql.deleteExpired();
            String plan = db.query("EXPLAIN " + delete).stream().map(row -> (String) row.get("QUERY PLAN"))
                    .reduce("", (a, b) -> a + "\n" + b);

            ClaimProbe claims = new ClaimProbe(db, RelaySql.heartbeat(), RelaySql.claimAll());
            Thread claimer = new Thread(claims, "bench-claims");
            claimer.start();
            List<Long> deleteMillis = new ArrayList<>();
            long deleted = 0;
            double passSeconds;
            try {
                pause(quietSeconds * 1000L);
                claims.phase("during");
                int batchSize = Integer.parseInt(RelaySettingsFile.get("outbox.retention.batch-size", "5000"));
                long passStart = System.nanoTime();
                try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(delete)) {
                    try (var jit = c.createStatement()) {
                        jit.execute("SET jit = off");
                    }
                    int count;
                    do {
                        long start = System.nanoTime();
                        count = ps.executeUpdate();
                        deleteMillis.add((System.nanoTime() - start) / 1_000_000);
                        deleted += count;
                    } while (count == batchSize);
                }
                passSeconds = (System.nanoTime() - passStart) / 1e9;
                claims.phase("after");
                pause(5_000);
            } finally {
                claims.stop();
                claimer.join();
            }
            long[] deletes = deleteMillis.stream().mapToLong(Long::longValue).sorted().toArray();
            Map<String, Object> r = result("retention");
            r.put("published_rows", published);
            r.put("pending_rows", pending);
            r.put("delete_plan", plan.contains("Seq Scan") ? "seq scan" : plan.contains("Index Scan using")
                    ? "index scan + " + (plan.contains("Tid Scan") ? "tid scan" : "other") : plan);
            r.put("rows_deleted", deleted);
            r.put("statements", deletes.length);
            r.put("pass_s", round(passSeconds));
            r.put("delete_p50_ms", percentile(deletes, 0.50));
            r.put("delete_max_ms", deletes.length == 0 ? -1 : deletes[deletes.length - 1]);
            for (String phase : List.of("before", "during", "after")) {
                long[] latencies = claims.latencies(phase);
                r.put("claim_" + phase + "_n", latencies.length);
                r.put("claim_" + phase + "_p50_ms", percentile(latencies, 0.50));
                r.put("claim_" + phase + "_p99_ms", percentile(latencies, 0.99));
                r.put("claim_" + phase + "_max_ms", latencies.length == 0 ? -1 : latencies[latencies.length - 1]);
            }
            return r;
        }
    }

    /**
     * Archive mode against delete mode: the same {@code published} PUBLISHED rows past outbox.retention (and
     * {@code pending} PENDING ones), in two fresh databases; a janitor pass of the relay's delete statement in one, of
     * its archive statement (after its partition statement) in the other, each until a batch comes back short as the
     * retention route runs them. Then the month partition the archive pass filled is dropped by the janitor's own
     * function (migration V8), its cutoff set at that month's end. Reported: both passes' time and statements, the
     * ratio, the partition's rows and size, and the drop's time.
     */
    Map<String, Object> archive(int published, int pending) throws Exception {
        Map<String, Object> r = result("archive");
        r.put("published_rows", published);
        r.put("pending_rows", pending);
        double deleteSeconds;
        try (TestDatabase db = env.databaseWithSchema()) {
            insertPublished(db, published);
            BenchEnvironment.insertEvents(db, new String[] {"a", "b", "c"}, pending);
            db.update("VACUUM ANALYZE outbox");
            settle(db);
            long[] pass = janitorPass(db, RelaySql.deleteExpired());
            deleteSeconds = pass[2] / 1e9;
            r.put("delete_rows", pass[0]);
            r.put("delete_statements", pass[1]);
            r.put("delete_pass_s", round(deleteSeconds));
        }
        try (TestDatabase db = env.databaseWithSchema()) {
            insertPublished(db, published);
            BenchEnvironment.insertEvents(db, new String[] {"a", "b", "c"}, pending);
            db.update("VACUUM ANALYZE outbox");
            settle(db);
            long start = System.nanoTime();
            db.query(RelaySql.archiveAddPartitions());
            long[] pass = janitorPass(db, RelaySql.archiveExpired());
            double archiveSeconds = (System.nanoTime() - start) / 1e9;
            r.put("archive_rows", pass[0]);
            r.put("archive_statements", pass[1]);
            r.put("archive_pass_s", round(archiveSeconds));
            r.put("archive_vs_delete", round(archiveSeconds / deleteSeconds));
            r.put("rows_left_in_outbox", db.count("SELECT count(*) FROM outbox"));

            String month = (String) db.query("SELECT c.relname FROM pg_inherits i "
                    + "JOIN pg_class c ON c.oid = i.inhrelid "
                    + "WHERE i.inhparent = 'outbox_archive'::regclass ORDER BY pg_total_relation_size(c.oid) DESC "
                    + "LIMIT 1").get(0).get("relname");
            r.put("partition", month);
            r.put("partition_rows", db.count("SELECT count(*) FROM " + month));
            r.put("partition_mb", db.count("SELECT pg_total_relation_size('" + month + "') / 1048576"));
            long dropStart = System.nanoTime();
            long dropped = db.count("SELECT outbox_archive_drop_expired(now() - "
                    + "(date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC')");
            r.put("partitions_dropped", dropped);
            r.put("drop_month_ms", (System.nanoTime() - dropStart) / 1_000_000);
            r.put("archive_rows_after_drop", db.count("SELECT count(*) FROM outbox_archive"));
        }
        return r;
    }

    /**
     * Both passes start from the same state: no autovacuum worker busy (with the previous database's dead rows, say)
     * and a fresh checkpoint, so neither pays for the 2 million rows' load written just before it.
     */
    static void settle(TestDatabase db) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (db.count("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'") > 0
                && System.nanoTime() < deadline) {
            pause(500);
        }
        db.update("CHECKPOINT");
    }

    /** The janitor's loop: the statement until a batch comes back short; rows, statements, nanoseconds. */
    static long[] janitorPass(TestDatabase db, String statement) throws Exception {
        int batchSize = Integer.parseInt(RelaySettingsFile.get("outbox.retention.batch-size", "5000"));
        long rows = 0;
        long statements = 0;
        long start = System.nanoTime();
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(statement)) {
            try (var jit = c.createStatement()) {
                jit.execute("SET jit = off");
            }
            int count;
            do {
                count = ps.executeUpdate();
                rows += count;
                statements++;
            } while (count == batchSize);
        }
        return new long[] {rows, statements, System.nanoTime() - start};
    }

    /** Rows published a day longer ago than the default retention (P7D), about 300 bytes each like the events. */
    static void insertPublished(TestDatabase db, int rows) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at, "
                + "created_at) "
                + "SELECT 'old', 'key-' || (n % " + BenchEnvironment.KEYS + "), 'Updated', jsonb_build_object('id', n, "
                + "'note', repeat('x', 250)), 'PUBLISHED', now() - interval '8 days' + n * interval '1 millisecond', "
                + "now() - interval '8 days' FROM generate_series(1, ?) AS n", rows);
    }

    /** The relay's claim of every partition, five times a second (a claim writes nothing); latencies per phase. */
    private static final class ClaimProbe implements Runnable {

        private final TestDatabase db;
        private final String heartbeat;
        private final String claim;
        private final Map<String, List<Long>> latencies = new ConcurrentHashMap<>();
        private volatile String phase = "before";
        private volatile boolean running = true;

        ClaimProbe(TestDatabase db, String heartbeat, String claim) {
            this.db = db;
            this.heartbeat = heartbeat;
            this.claim = claim;
        }

        void phase(String name) {
            phase = name;
        }

        void stop() {
            running = false;
        }

        long[] latencies(String name) {
            return latencies.getOrDefault(name, List.of()).stream().mapToLong(Long::longValue).sorted().toArray();
        }

        @Override
        public void run() {
            try (Connection c = db.connect(); PreparedStatement heartbeatPs = c.prepareStatement(heartbeat);
                    PreparedStatement claimPs = c.prepareStatement(claim)) {
                try (var jit = c.createStatement()) {
                    jit.execute("SET jit = off");
                }
                while (running) {
                    long next = System.nanoTime() + 200_000_000L;
                    // stays the owner of every partition, as a relay's heartbeat keeps it
                    heartbeatPs.executeQuery().close();
                    String current = phase;
                    long start = System.nanoTime();
                    try (ResultSet rs = claimPs.executeQuery()) {
                        while (rs.next()) {
                            rs.getString("id");
                        }
                    }
                    latencies.computeIfAbsent(current, k -> new ArrayList<>())
                            .add((System.nanoTime() - start) / 1_000_000);
                    LockSupport.parkNanos(next - System.nanoTime());
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
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
                try (PreparedStatement claim = c.prepareStatement("SELECT id, aggregate_type, aggregate_id, "
                        + "payload::text "
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
