package io.outboxrelay.bench;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.settings.Database;
import io.outboxrelay.support.KafkaBroker;

/**
 * The benchmark suite ({@code bench/run}): limits (raw Kafka producer, raw claim + mark), the naive baseline, drain
 * (also without and with event schemas: schemas), steady and idle, what a relay costs the writers (writers), each
 * {@code --runs} times, against a real Kafka broker and the packaged relay. Appends one JSON
 * line per result to docs/benchmarks.jsonl and a section per run to docs/BENCHMARKS.md. Not a test: nothing here
 * passes or fails.
 *
 * Options: --runs N (2), --events N (200000), --naive-events N (50000), --steady-rate N (2000),
 * --steady-writers N (8: writer threads sharing the steady rate, steady and plain_steady alike),
 * --steady-seconds N (60), --steady-warmup-seconds N (15: written at the same rate before the measured seconds,
 * while the freshly started relay's JIT compiles; reported apart in p99_ms_by_10s), --idle-seconds N (60),
 * --retention-published N (2000000), --retention-pending N (100000) (the retention and archive scenarios),
 * --writer-counts N,N,... (8,32,64; 8,32 with --db mariadb), --writer-seconds N (10) and --writer-warmup-seconds N
 * (60: written before the measured seconds, every configuration alike, while a freshly started relay's JIT compiles:
 * with 2 s, the C2 compiler threads were the relay's largest CPU user in the measured window; with 15 s, the relay's
 * CPU was still falling through the window, 1.0 to 0.3 cores at 8 writers on MariaDB, and settled ~40 s after its
 * start), --writer-configurations C,C,... (every one: bare,plain,relay and, on PostgreSQL, notify; a subset measures
 * only those, and the ratios only against the ones measured) (the writers scenario),
 * --crash-events N (50000: the backlog of the crash scenarios), --janitor-published N (1000000) (the janitors
 * scenario: one retention pass against three at once),
 * --late-commits N (10: one at a time, quiet and beside traffic, besides 50 concurrent) (the latecommit scenario),
 * --outage-trials N (3) and --outage-seconds N (30) (the outage scenario: first publish after Kafka's return),
 * --only drain,steady,... (all but wakeup, latecommit, outage and console; console = a drain with the operator
 * console read once a second over 1,000,000 rows, 100,000 FAILED, and the same drain without; wakeup = steady,
 * steady_claim_index, idle and idle_claim_index: the relay with outbox.wake-up=sequence and =claim-index),
 * --drain-warmup N (200000: events each drain relay sends before the timed drain), --drain-steady-warmup-seconds N
 * (0: then N seconds of steady traffic, 2,000 single-event transactions a second from 8 writers, drained before the
 * timed drain, so that the relay has served many small claims as one that has run for days has; every drain alike),
 * --db postgresql|mariadb (postgresql) and --mariadb-url URL (jdbc:mariadb://127.0.0.1:3306/, user root, no password;
 * each scenario run creates a database of its own there and drops it): with mariadb, the scenarios plain, drain,
 * steady and writers (the default --only) run against MariaDB under names ending in _mariadb, the plain relay being
 * PlainRelay's MariaDB form, the database's CPU that of the mariadbd process (a server on this machine).
 * PostgreSQL runs with autovacuum on for the benchmarks, as in production; the server's own setting is put back at
 * the end.
 */
public final class Benchmarks {

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int runs = Integer.parseInt(o.getOrDefault("runs", "2"));
        int events = Integer.parseInt(o.getOrDefault("events", "200000"));
        int naiveEvents = Integer.parseInt(o.getOrDefault("naive-events", "50000"));
        int steadyRate = Integer.parseInt(o.getOrDefault("steady-rate", "2000"));
        int steadyWriters = Integer.parseInt(o.getOrDefault("steady-writers", "8"));
        int steadySeconds = Integer.parseInt(o.getOrDefault("steady-seconds", "60"));
        int steadyWarmup = Integer.parseInt(o.getOrDefault("steady-warmup-seconds", "15"));
        int idleSeconds = Integer.parseInt(o.getOrDefault("idle-seconds", "60"));
        int retentionPublished = Integer.parseInt(o.getOrDefault("retention-published", "2000000"));
        int crashEvents = Integer.parseInt(o.getOrDefault("crash-events", "50000"));
        int janitorPublished = Integer.parseInt(o.getOrDefault("janitor-published", "1000000"));
        int retentionPending = Integer.parseInt(o.getOrDefault("retention-pending", "100000"));
        int startupRuns = Integer.parseInt(o.getOrDefault("startup-runs", "3"));
        int writerSeconds = Integer.parseInt(o.getOrDefault("writer-seconds", "10"));
        int writerWarmupSeconds = Integer.parseInt(o.getOrDefault("writer-warmup-seconds", "60"));
        int lateCommits = Integer.parseInt(o.getOrDefault("late-commits", "10"));
        int outageTrials = Integer.parseInt(o.getOrDefault("outage-trials", "3"));
        int outageSeconds = Integer.parseInt(o.getOrDefault("outage-seconds", "30"));
        int drainWarmup = Integer.parseInt(o.getOrDefault("drain-warmup", Integer.toString(Scenarios.DRAIN_WARMUP)));
        BenchDatabase database = database(o);
        List<Integer> writerCounts = Arrays.stream(o.getOrDefault("writer-counts",
                database.mariadb() ? "8,32" : "8,32,64").split(",")).map(String::trim).map(Integer::parseInt).toList();
        List<String> writerConfigurations = o.containsKey("writer-configurations")
                ? List.of(o.get("writer-configurations").split(",")) : database.writerConfigurations();
        List<String> only = List.of(o.getOrDefault("only", database.mariadb() ? String.join(",", MARIADB_SCENARIOS)
                : "limits,naive,plain,drain,schemas,tracing,hot,startup,steady,idle,writers,retention,archive,"
                        + "crash,janitors")
                .split(","));
        if (database.mariadb() && !MARIADB_SCENARIOS.containsAll(only)) {
            System.err.println("--db mariadb runs the scenarios " + String.join(",", MARIADB_SCENARIOS) + " only, not "
                    + only.stream().filter(s -> !MARIADB_SCENARIOS.contains(s)).collect(Collectors.joining(",")));
            System.exit(2);
        }
        List<String> knownConfigurations = database.writerConfigurations();
        if (!knownConfigurations.containsAll(writerConfigurations)) {
            System.err.println("--writer-configurations takes " + String.join(",", knownConfigurations) + " here, not "
                    + writerConfigurations.stream().filter(c -> !knownConfigurations.contains(c))
                            .collect(Collectors.joining(",")));
            System.exit(2);
        }

        String started = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        List<Map<String, Object>> results = new ArrayList<>();
        try (KafkaBroker kafka = KafkaBroker.start(); Autovacuum on = database.mariadb() ? null : Autovacuum.on()) {
            BenchEnvironment environment = new BenchEnvironment(kafka, database);
            Scenarios scenarios = new Scenarios(environment, drainWarmup,
                    Integer.parseInt(o.getOrDefault("drain-steady-warmup-seconds", "0")));
            for (int run = 1; run <= runs; run++) {
                if (only.contains("limits")) {
                    record(results, run, scenarios.kafkaLimit(events));
                    for (Map<String, Object> limit : scenarios.databaseLimits(events)) {
                        record(results, run, limit);
                    }
                }
                if (only.contains("naive")) {
                    record(results, run, scenarios.naive(naiveEvents));
                }
                // the plain relay's drain and the relay's alternate which goes first, as the writers' configurations
                // do: on MariaDB the second run's relay drain, always second, measured 0.87x twice (docs/BENCHMARKS.md)
                boolean relayDrainFirst = run % 2 == 0;
                if (relayDrainFirst && only.contains("drain")) {
                    record(results, run, scenarios.drain(events));
                }
                if (only.contains("plain")) {
                    record(results, run, scenarios.plainDrain(events));
                }
                if (!relayDrainFirst && only.contains("drain")) {
                    record(results, run, scenarios.drain(events));
                }
                if (only.contains("schemas")) {
                    for (Map<String, Object> drain : scenarios.drainSchemas(events, run % 2 == 0)) {
                        record(results, run, drain);
                    }
                }
                if (only.contains("console")) {
                    for (Map<String, Object> drain : new ConsoleLoad(environment, scenarios).run(events,
                            run % 2 == 1)) {
                        record(results, run, drain);
                    }
                }
                if (only.contains("tracing")) {
                    for (Map<String, Object> drain : scenarios.drainTracing(events, run % 2 == 0)) {
                        record(results, run, drain);
                    }
                }
                if (only.contains("hot")) {
                    record(results, run, scenarios.plainDrainHotKeys(events));
                    record(results, run, scenarios.drainHotKeys(events));
                }
                if (only.contains("startup")) {
                    record(results, run, scenarios.startup(startupRuns));
                }
                if (only.contains("steady")) {
                    record(results, run, scenarios.plainSteady(steadyRate, steadySeconds, steadyWarmup, steadyWriters));
                    record(results, run, scenarios.steady(steadyRate, steadySeconds, steadyWarmup, steadyWriters));
                }
                if (only.contains("idle")) {
                    record(results, run, scenarios.idle(idleSeconds));
                }
                if (only.contains("wakeup")) {
                    // the two watches in turns, the first one alternating with the run; steady and idle not twice
                    boolean sequenceFirst = run % 2 == 1;
                    for (boolean claimIndex : new boolean[] {!sequenceFirst, sequenceFirst}) {
                        if (claimIndex) {
                            record(results, run, scenarios.steadyClaimIndex(steadyRate, steadySeconds, steadyWarmup,
                                    steadyWriters));
                        } else if (!only.contains("steady")) {
                            record(results, run, scenarios.steady(steadyRate, steadySeconds, steadyWarmup,
                                    steadyWriters));
                        }
                    }
                    for (boolean claimIndex : new boolean[] {!sequenceFirst, sequenceFirst}) {
                        if (claimIndex) {
                            record(results, run, scenarios.idleClaimIndex(idleSeconds));
                        } else if (!only.contains("idle")) {
                            record(results, run, scenarios.idle(idleSeconds));
                        }
                    }
                }
                if (only.contains("writers")) {
                    for (Map<String, Object> writers
                            : scenarios.writers(writerCounts, writerConfigurations, writerSeconds,
                            writerWarmupSeconds, run)) {
                        record(results, run, writers);
                    }
                }
                if (only.contains("retention")) {
                    record(results, run, scenarios.retention(retentionPublished, retentionPending, 20));
                }
                if (only.contains("archive")) {
                    record(results, run, scenarios.archive(retentionPublished, retentionPending));
                }
                if (only.contains("crash")) {
                    Crashes crashes = new Crashes(environment);
                    record(results, run, crashes.restart(crashEvents));
                    record(results, run, crashes.oneOfThree(crashEvents));
                }
                if (only.contains("latecommit")) {
                    for (Map<String, Object> late : new LateCommits(environment).latecommit(lateCommits)) {
                        record(results, run, late);
                    }
                }
                if (only.contains("outage")) {
                    record(results, run, new LateCommits(environment).outage(outageTrials, outageSeconds));
                }
                if (only.contains("janitors")) {
                    for (Map<String, Object> janitors : new Janitors(environment).run(janitorPublished,
                            retentionPending)) {
                        record(results, run, janitors);
                    }
                }
            }
        }
        write(started, o, results);
        System.exit(0);
    }

    /** What --db mariadb runs: the scenarios of issue 33's MariaDB targets. */
    private static final List<String> MARIADB_SCENARIOS = List.of("plain", "drain", "steady", "writers");

    private static BenchDatabase database(Map<String, String> o) {
        String db = o.getOrDefault("db", "postgresql");
        if (!db.equals("postgresql") && !db.equals("mariadb")) {
            System.err.println("--db: expected postgresql or mariadb, got " + db);
            System.exit(2);
        }
        return new BenchDatabase(db.equals("mariadb") ? Database.MARIADB : Database.POSTGRESQL,
                o.getOrDefault("mariadb-url", "jdbc:mariadb://127.0.0.1:3306/"));
    }

    private static void record(List<Map<String, Object>> results, int run, Map<String, Object> result) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("run", run);
        r.putAll(result);
        results.add(r);
        System.out.println(r);
    }

    private static void write(String started, Map<String, String> options, List<Map<String, Object>> results)
            throws Exception {
        ObjectMapper json = new ObjectMapper();
        Path docs = Files.createDirectories(Path.of("docs"));
        String machine = machine();
        StringBuilder lines = new StringBuilder();
        for (Map<String, Object> r : results) {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("date", started);
            line.put("machine", machine);
            line.putAll(r);
            lines.append(json.writeValueAsString(line)).append('\n');
        }
        Files.writeString(docs.resolve("benchmarks.jsonl"), lines, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);

        StringBuilder md = new StringBuilder();
        md.append("\n## Run of ").append(started).append("\n\n");
        md.append("Machine: ").append(machine).append(". Options: ").append(options.isEmpty() ? "defaults" : options)
                .append(". Relay settings: batch-size ").append(RelaySettingsFile.get("outbox.batch-size", "?"))
                .append(", poll-delay-ms ").append(RelaySettingsFile.get("outbox.poll-delay-ms", "?"))
                .append(", partitions ").append(RelaySettingsFile.get("outbox.partitions", "?"))
                .append(", kafka linger-ms ").append(RelaySettingsFile.get("camel.component.kafka.linger-ms", "0"))
                .append(", producer-batch-size ")
                .append(RelaySettingsFile.get("camel.component.kafka.producer-batch-size", "16384"))
                .append(", compression ")
                .append(RelaySettingsFile.get("camel.component.kafka.compression-codec", "none"))
                .append(".\n\n");
        Map<String, List<Map<String, Object>>> byTable = results.stream()
                .collect(Collectors.groupingBy(r -> table((String) r.get("scenario")), LinkedHashMap::new,
                        Collectors.toList()));
        for (Map.Entry<String, List<Map<String, Object>>> group : byTable.entrySet()) {
            // every column any row of the table has (the writers' ratios are on the relay rows only)
            LinkedHashSet<String> columns = new LinkedHashSet<>();
            group.getValue().forEach(r -> columns.addAll(r.keySet()));
            columns.remove("scenario");
            md.append("**").append(group.getKey()).append("**\n\n| ").append(String.join(" | ", columns))
                    .append(" |\n|");
            columns.forEach(c -> md.append("---|"));
            md.append('\n');
            for (Map<String, Object> r : group.getValue()) {
                md.append("| ").append(columns.stream().map(c -> r.containsKey(c) ? String.valueOf(r.get(c)) : "")
                        .collect(Collectors.joining(" | "))).append(" |\n");
            }
            md.append('\n');
        }
        md.append(ratios(results));
        Path report = docs.resolve("BENCHMARKS.md");
        if (!Files.exists(report)) {
            Files.writeString(report, "# Benchmarks\n\nWritten by `bench/run`; newest run last.\n");
        }
        Files.writeString(report, md, StandardOpenOption.APPEND);
    }

    /**
     * The table a result goes into: its scenario's, except the writers rows (writers_8_relay, ...), which go into one
     * table, a row per writer count and configuration, their writers and configuration columns saying which.
     */
    private static String table(String scenario) {
        String database = scenario.endsWith(BenchDatabase.SUFFIX) ? BenchDatabase.SUFFIX : "";
        return scenario.startsWith("writers_") ? "writers" + database
                : scenario.startsWith("janitors_") ? "janitors" : scenario;
    }

    /** Per run: relay drain vs. the lower raw limit and vs. the naive loop; the writers' rates beside the relays. */
    private static String ratios(List<Map<String, Object>> results) {
        StringBuilder md = new StringBuilder();
        for (Map<String, Object> r : results) {
            if (r.get("vs_bare") != null && table((String) r.get("scenario")).startsWith("writers")) {
                md.append(String.format("Run %s, %s writers%s: beside the %s, writers commit %,d/s = %.2f× no relay, "
                        + "%.2f× beside the plain relay%s; p99 %s ms.%n%n", r.get("run"), r.get("writers"),
                        ((String) r.get("scenario")).endsWith(BenchDatabase.SUFFIX) ? " on MariaDB" : "",
                        r.get("configuration").equals("notify") ? "relay woken by the notify trigger" : "relay",
                        r.get("commits_per_s"), r.get("vs_bare"), r.get("vs_plain"),
                        ((String) r.get("scenario")).endsWith(BenchDatabase.SUFFIX) ? " (target ≥ 0.95×)" : "",
                        r.get("p99_ms")));
            }
        }
        md.append(MariaDbRatios.of(results));
        Map<Object, Map<String, Long>> rates = new LinkedHashMap<>();
        for (Map<String, Object> r : results) {
            if (r.get("events_per_s") instanceof Number rate) {
                rates.computeIfAbsent(r.get("run"), k -> new HashMap<>())
                        .put((String) r.get("scenario"), rate.longValue());
            }
        }
        for (Map.Entry<Object, Map<String, Long>> run : rates.entrySet()) {
            Map<String, Long> r = run.getValue();
            if (r.containsKey("drain_schemas_on") && r.containsKey("drain_schemas_off")) {
                md.append(String.format("Run %s: drain with event schemas %,d events/s = %.0f%% of the drain without "
                        + "(%,d/s; target ≥ 85%%).%n%n", run.getKey(), r.get("drain_schemas_on"),
                        100.0 * r.get("drain_schemas_on") / r.get("drain_schemas_off"), r.get("drain_schemas_off")));
            }
            if (r.containsKey("drain_console_on") && r.containsKey("drain_console_off")) {
                md.append(String.format("Run %s: drain with the console read once a second %,d events/s = %.0f%% of "
                        + "the drain with nobody looking (%,d/s; target ≥ 95%%).%n%n", run.getKey(),
                        r.get("drain_console_on"), 100.0 * r.get("drain_console_on") / r.get("drain_console_off"),
                        r.get("drain_console_off")));
            }
            if (r.containsKey("drain_tracing_on") && r.containsKey("drain_tracing_off")) {
                md.append(String.format("Run %s: drain with tracing on %,d events/s = %.0f%% of the drain with tracing "
                        + "off (%,d/s; target ≥ 80%%).%n%n", run.getKey(), r.get("drain_tracing_on"),
                        100.0 * r.get("drain_tracing_on") / r.get("drain_tracing_off"), r.get("drain_tracing_off")));
            }
            if (r.containsKey("drain") && r.containsKey("limit_kafka") && r.containsKey("limit_postgres")) {
                long limit = Math.min(r.get("limit_kafka"), r.get("limit_postgres"));
                md.append(String.format("Run %s: relay drain %,d events/s = %.0f%% of the lower raw limit (%,d/s)",
                        run.getKey(), r.get("drain"), 100.0 * r.get("drain") / limit, limit));
                if (r.containsKey("plain_drain")) {
                    md.append(String.format("; %.2f× the plain relay (%,d/s)",
                            (double) r.get("drain") / r.get("plain_drain"),
                            r.get("plain_drain")));
                }
                if (r.containsKey("drain_hot_keys")) {
                    md.append(String.format("; 10 hot keys at %.0f%% of the drain rate", 100.0 * r.get("drain_hot_keys")
                            / r.get("drain")));
                }
                if (r.containsKey("naive")) {
                    md.append(String.format("; %.1f× the naive loop (%,d/s)", (double) r.get("drain") / r.get("naive"),
                            r.get("naive")));
                }
                md.append(".\n\n");
            }
        }
        return md.toString();
    }

    private static String machine() throws Exception {
        long memKb = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                .map(l -> Long.parseLong(l.replaceAll("\\D", ""))).findFirst().orElse(0L);
        return String.format("%s, %d cores, %d GiB, Java %s", InetAddress.getLocalHost().getHostName(),
                Runtime.getRuntime().availableProcessors(), Math.round(memKb / 1024.0 / 1024.0),
                System.getProperty("java.version"));
    }
}
