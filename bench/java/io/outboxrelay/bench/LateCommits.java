package io.outboxrelay.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.LateTransactions;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;

import static org.awaitility.Awaitility.await;

/**
 * Contract §4's promptness as users meet it, with the relay's default settings (the 5 s poll): commit to publication
 * of events whose transactions commit long after their INSERT while an unrelated transaction stays open (quiet, and
 * beside 20 other events a second), of 50 concurrent writers that commit 0-2 s after their INSERT; and the first
 * publication after a Kafka outage, from the broker's return. Run against the jar of -Drelay.jar, so the same
 * scenarios measure an older build too.
 */
final class LateCommits {

    private final BenchEnvironment env;

    LateCommits(BenchEnvironment env) {
        this.env = env;
    }

    /** latecommit_quiet, latecommit_traffic, latecommit_concurrent: commit to published_at, in ms. */
    List<Map<String, Object>> latecommit(int lateCommits) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        try (TestDatabase db = env.databaseWithSchema()) {
            for (String type : List.of("late", "traffic", "concurrent")) {
                env.kafka.createTopic("outbox.event." + type, 3, Map.of());
            }
            RelayProcess relay = env.startRelay(db, Map.of());
            try (AutoCloseable stranger = LateTransactions.holdStranger(db)) {
                results.add(oneAtATime("latecommit_quiet", db, lateCommits));
                try (ContinuousWriter traffic = new ContinuousWriter(db, "traffic", 100, 20, Integer.MAX_VALUE)) {
                    results.add(oneAtATime("latecommit_traffic", db, lateCommits));
                }
                List<Duration> delays = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    delays.add(Duration.ofMillis(ThreadLocalRandom.current().nextLong(2_001)));
                }
                List<LateTransactions.Committed> committed = LateTransactions.write(db, "concurrent", delays);
                results.add(summary("latecommit_concurrent", LateTransactions.commitToPublishMillis(db,
                        "concurrent", committed, Duration.ofSeconds(60))));
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
        return results;
    }

    /** Late transactions one after another, each committing 1-3 s after its INSERT. */
    private static Map<String, Object> oneAtATime(String scenario, TestDatabase db, int lateCommits)
            throws Exception {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < lateCommits; i++) {
            String type = "late";
            List<LateTransactions.Committed> committed = LateTransactions.write(db, type,
                    List.of(Duration.ofMillis(1_000 + ThreadLocalRandom.current().nextLong(2_001))));
            for (long m : LateTransactions.commitToPublishMillis(db, type, committed, Duration.ofSeconds(60))) {
                millis.add(m);
            }
            // measured: the next round counts its own event only
            db.update("DELETE FROM outbox WHERE aggregate_type = ?", type);
        }
        return summary(scenario, millis.stream().mapToLong(Long::longValue).toArray());
    }

    /** outage_N: the first publication after the broker's return, over N trials of an outage of the given length. */
    Map<String, Object> outage(int trials, int outageSeconds) throws Exception {
        long[] catchUp = new long[trials];
        try (TestDatabase db = env.databaseWithSchema()) {
            env.kafka.createTopic("outbox.event.outage", 3, Map.of());
            RelayProcess relay = env.startRelay(db, Map.of());
            try (ContinuousWriter writer = new ContinuousWriter(db, "outage", 100, 50, Integer.MAX_VALUE)) {
                for (int t = 0; t < trials; t++) {
                    await().atMost(Duration.ofSeconds(60)).until(() -> db.count(
                            "SELECT count(*) FROM outbox WHERE status = 'PUBLISHED' AND published_at > now() - "
                                    + "interval '1 second'") > 0);
                    env.kafka.stop();
                    Thread.sleep(outageSeconds * 1_000L);
                    env.kafka.restart();
                    double returnedAt = System.currentTimeMillis() / 1000.0;
                    String first = "SELECT extract(epoch FROM min(published_at)) AS first FROM outbox "
                            + "WHERE status = 'PUBLISHED' AND published_at >= to_timestamp(?)";
                    await().atMost(Duration.ofSeconds(120))
                            .until(() -> db.query(first, returnedAt).get(0).get("first") != null);
                    double at = ((Number) db.query(first, returnedAt).get(0).get("first")).doubleValue();
                    catchUp[t] = Math.round((at - returnedAt) * 1000);
                    System.out.println("outage trial " + t + ": first publish " + catchUp[t] + " ms after return");
                }
            } finally {
                BenchEnvironment.stop(relay);
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("scenario", "outage_" + outageSeconds + "s");
        r.put("relay", System.getProperty("relay.jar", "target/outbox-relay.jar"));
        r.put("first_publish_after_return_ms", Arrays.toString(catchUp));
        return r;
    }

    private static Map<String, Object> summary(String scenario, long[] millis) {
        long[] sorted = millis.clone();
        Arrays.sort(sorted);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("scenario", scenario);
        r.put("relay", System.getProperty("relay.jar", "target/outbox-relay.jar"));
        r.put("events", sorted.length);
        r.put("p50_ms", sorted[(sorted.length - 1) / 2]);
        r.put("p99_ms", sorted[(int) Math.ceil(sorted.length * 0.99) - 1]);
        r.put("max_ms", sorted[sorted.length - 1]);
        return r;
    }
}
