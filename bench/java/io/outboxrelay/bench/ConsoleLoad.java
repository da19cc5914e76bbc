package io.outboxrelay.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.support.KafkaBroker;
import io.outboxrelay.support.TestDatabase;
import org.mindrot.jbcrypt.BCrypt;

/**
 * The console under load ({@code bench/run --only console}): an outbox of 1,000,000 rows, 100,000 of them FAILED, the
 * rest published but for the drain's events; a drain runs while a console client asks for the summary and the first
 * page of FAILED events once a second (the page refreshes its summary every 3 s: this is more), timing each answer
 * and noting how long the database took for the summary served (computed in the background, at most every
 * outbox.metrics.refresh-ms);
 * and the same drain with the console configured but nobody looking. Each on a fresh database, the order alternating
 * with the run.
 */
final class ConsoleLoad {

    static final int ROWS = 1_000_000;
    static final int FAILED = 100_000;
    private static final String USER = "bench";
    private static final String PASSWORD = "bench-password";

    private final BenchEnvironment env;
    private final Scenarios scenarios;

    ConsoleLoad(BenchEnvironment env, Scenarios scenarios) {
        this.env = env;
        this.scenarios = scenarios;
    }

    List<Map<String, Object>> run(int events, boolean lookingFirst) throws Exception {
        Path users = Files.createTempFile("bench-console", ".htpasswd");
        Files.writeString(users, USER + ":" + BCrypt.hashpw(PASSWORD, BCrypt.gensalt(10)) + "\n");
        List<Map<String, Object>> results = new ArrayList<>();
        for (boolean looking : lookingFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            int port = KafkaBroker.freePort();
            results.add(scenarios.drain(looking ? "drain_console_on" : "drain_console_off", events,
                    BenchEnvironment.KEYS, (db, types) -> backdrop(db, types, events),
                    (db, types) -> env.startRelay(db, Map.of("OUTBOX_CONSOLE_VIEWERS", users.toString()), port),
                    relay -> looking ? new Poller(port) : null));
        }
        return results;
    }

    /** FAILED and PUBLISHED rows so that, with the warm-up and the drain, the outbox holds 1,000,000. */
    private void backdrop(TestDatabase db, String[] types, int events) {
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, attempts, "
                + "last_error) SELECT (?::text[])[1 + n % 3], 'failed-' || (n % 5000), 'Updated', "
                + "jsonb_build_object('id', n), 'FAILED', 10, "
                + "'org.apache.kafka.common.errors.RecordTooLargeException: ' || n "
                + "FROM generate_series(1, ?) n", (Object) types, FAILED);
        db.update("INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, status, published_at) "
                + "SELECT (?::text[])[1 + n % 3], 'key-' || (n % 1000), 'Updated', jsonb_build_object('id', n), "
                + "'PUBLISHED', now() - interval '1 day' FROM generate_series(1, ?) n", (Object) types,
                ROWS - FAILED - scenarios.drainWarmup() - events);
        // as autovacuum would have, on a table that old
        db.update("VACUUM (ANALYZE) outbox");
    }

    /** The console's two reads, once a second, each timed, until the drain ends. */
    private static final class Poller implements Scenarios.DrainCompanion {

        private final HttpClient http = HttpClient.newHttpClient();
        private final String base;
        private final String authorization = "Basic " + Base64.getEncoder()
                .encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
        private final List<Long> summary = new ArrayList<>();
        private final List<Long> firstPage = new ArrayList<>();
        /** How long the database took for the summaries served (computed in the background). */
        private final List<Long> computed = new ArrayList<>();
        private final ObjectMapper json = new ObjectMapper();
        private final Thread thread;
        private volatile boolean running = true;

        Poller(int port) {
            base = "http://127.0.0.1:" + port + "/outbox/api/";
            // an operator's page has loaded once before it is timed: the console's first request loads its code
            // path and checks the password's bcrypt hash (~140 ms on a quiet machine), as a browser's first load does
            timed("summary", null);
            timed("events?status=FAILED&limit=50", null);
            thread = new Thread(this::poll, "console-poller");
            thread.start();
        }

        private void poll() {
            while (running) {
                long started = System.nanoTime();
                summary.add(timed("summary", computed));
                firstPage.add(timed("events?status=FAILED&limit=50", null));
                long pause = 1_000 - (System.nanoTime() - started) / 1_000_000;
                if (pause > 0) {
                    try {
                        Thread.sleep(pause);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }

        private long timed(String path, List<Long> computeMillis) {
            long start = System.nanoTime();
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path))
                        .header("Authorization", authorization).build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    throw new IllegalStateException(path + ": " + response.statusCode() + " " + response.body());
                }
                if (computeMillis != null) {
                    long took = (System.nanoTime() - start) / 1_000;
                    computeMillis.add(json.readTree(response.body()).get("computeMillis").asLong() * 1_000);
                    return took;
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return (System.nanoTime() - start) / 1_000;
        }

        @Override
        public Map<String, Object> stop() throws Exception {
            running = false;
            thread.join();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("console_reads", summary.size() + firstPage.size());
            describe(r, "summary", summary);
            describe(r, "first_page", firstPage);
            describe(r, "summary_computed", computed);
            return r;
        }

        private static void describe(Map<String, Object> r, String name, List<Long> micros) {
            long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
            r.put(name + "_ms_median", millis(sorted, 0.5));
            r.put(name + "_ms_p95", millis(sorted, 0.95));
            r.put(name + "_ms_max", sorted.length == 0 ? -1 : sorted[sorted.length - 1] / 1000.0);
        }

        private static double millis(long[] sorted, double p) {
            return sorted.length == 0 ? -1
                    : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1000.0;
        }
    }
}
