package io.outboxrelay.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;

/**
 * What a crash costs, with the default lease and heartbeat: kill -9 of a relay in the middle of a drain.
 * <ul>
 * <li>crash_restart: the only instance is killed and started again at once (a new process, a new identity, as a
 * container restart gives it): from the kill and from the restart to the first event published again, and to
 * drained.</li>
 * <li>crash_one_of_three: one of three instances is killed and not restarted: from the kill to the first event of its
 * partitions published by a survivor, and to drained.</li>
 * </ul>
 * Duplicates: records in Kafka beyond the events (what the killed instance had sent and not marked).
 */
final class Crashes {

    private final BenchEnvironment env;

    Crashes(BenchEnvironment env) {
        this.env = env;
    }

    Map<String, Object> restart(int events) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics("crashrestart" + suffix());
            BenchEnvironment.insertEvents(db, types, events);
            RelayProcess relay = env.startRelay(db, Map.of());
            RelayProcess restarted = null;
            try {
                awaitPublished(db, events / 3);
                relay.kill();
                long killed = System.nanoTime();
                String killedAt = now(db);
                restarted = env.startRelayUnwatched(db, Map.of());
                long restartedNanos = System.nanoTime();
                awaitFirstPublishAfter(db, killedAt, "true");
                long firstPublish = System.nanoTime();
                awaitDrained(db);
                long drained = System.nanoTime();
                Map<String, Object> r = result("crash_restart", events);
                r.put("kill_to_restart_ms", millis(restartedNanos - killed));
                r.put("restart_to_first_publish_ms", millis(firstPublish - restartedNanos));
                r.put("kill_to_first_publish_ms", millis(firstPublish - killed));
                r.put("restart_to_drained_s", seconds(drained - restartedNanos));
                r.put("duplicates", env.recordsIn(types) - events);
                return r;
            } finally {
                relay.close();
                if (restarted != null) {
                    BenchEnvironment.stop(restarted);
                }
            }
        }
    }

    Map<String, Object> oneOfThree(int events) throws Exception {
        try (TestDatabase db = env.databaseWithSchema()) {
            String[] types = env.createTopics("crashoneofthree" + suffix());
            List<RelayProcess> relays = new ArrayList<>();
            try {
                for (String name : List.of("a", "b", "c")) {
                    relays.add(env.startRelay(db, Map.of("OUTBOX_INSTANCE_ID", "crash-" + name)));
                }
                // the partitions shared out (32 over 3) before the backlog arrives
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (db.count("SELECT count(DISTINCT owner) FROM outbox_partitions") < 3) {
                    check(deadline, "three owners");
                    Thread.sleep(100);
                }
                BenchEnvironment.insertEvents(db, types, events);
                awaitPublished(db, events / 3);
                Integer[] partitions = db.query("SELECT partition_number FROM outbox_partitions WHERE owner LIKE "
                        + "'crash-a-%'").stream().map(row -> (Integer) row.get("partition_number"))
                        .toArray(Integer[]::new);
                relays.get(0).kill();
                long killed = System.nanoTime();
                String killedAt = now(db);
                awaitFirstPublishAfter(db, killedAt, "outbox_partition(aggregate_type, aggregate_id) = ANY(?)",
                        (Object) partitions);
                long firstPublish = System.nanoTime();
                long taken = db.count("SELECT count(*) FROM outbox_partitions WHERE owner NOT LIKE 'crash-a-%' "
                        + "AND partition_number = ANY(?)", (Object) partitions);
                awaitDrained(db);
                long drained = System.nanoTime();
                Map<String, Object> r = result("crash_one_of_three", events);
                r.put("partitions_of_killed", partitions.length);
                r.put("kill_to_first_publish_of_its_partitions_ms", millis(firstPublish - killed));
                r.put("its_partitions_taken_then", taken);
                r.put("kill_to_drained_s", seconds(drained - killed));
                r.put("duplicates", env.recordsIn(types) - events);
                return r;
            } finally {
                relays.get(0).close();
                relays.subList(1, relays.size()).forEach(BenchEnvironment::stop);
            }
        }
    }

    private static void awaitPublished(TestDatabase db, long events) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (db.count("SELECT count(*) FROM outbox WHERE status = 'PUBLISHED'") < events) {
            check(deadline, events + " published");
            Thread.sleep(50);
        }
    }

    /** Polls (every 20 ms, through the published_at index) for an event published after the kill. */
    private static void awaitFirstPublishAfter(TestDatabase db, String killedAt, String condition, Object... params)
            throws Exception {
        Object[] all = new Object[params.length + 1];
        all[0] = killedAt;
        System.arraycopy(params, 0, all, 1, params.length);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE published_at > ?::timestamptz AND "
                + condition + " LIMIT 1) p", all) == 0) {
            check(deadline, "a publish after the kill");
            Thread.sleep(20);
        }
    }

    private static void awaitDrained(TestDatabase db) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'PENDING' LIMIT 1) p") > 0) {
            check(deadline, "drained");
            Thread.sleep(50);
        }
    }

    private static String now(TestDatabase db) {
        return db.query("SELECT clock_timestamp()::text AS now").get(0).get("now").toString();
    }

    private static void check(long deadline, String what) {
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException("timed out waiting for " + what);
        }
    }

    private static Map<String, Object> result(String scenario, int events) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("scenario", scenario);
        r.put("events", events);
        r.put("lease", RelaySettingsFile.get("outbox.lease", "?"));
        r.put("heartbeat", RelaySettingsFile.get("outbox.instance.heartbeat", "?"));
        return r;
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }

    private static double seconds(long nanos) {
        return Math.round(nanos / 1e7) / 100.0;
    }

    private static String suffix() {
        return UUID.randomUUID().toString().substring(0, 6);
    }
}
