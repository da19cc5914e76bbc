package io.outboxrelay.guarantees;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.support.KafkaBroker;
import io.outboxrelay.support.RelayProcess;
import io.outboxrelay.support.TestDatabase;
import io.outboxrelay.support.ThrowawayPostgres;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every health endpoint answers within 1 s (an orchestrator's default probe timeout) whatever is down, for the whole
 * outage: the database down when the relay starts, a database restart, the broker down. Readiness reports the outage
 * (503), liveness never depends on it (200). A watcher asks all three endpoints in turn, ten times a second, with a
 * 1 s timeout, and keeps every answer's time. The first answer of a new JVM pays for loading the HTTP server's request
 * path (a few hundred classes, 0.2-0.9 s here, whatever is up or down): it is reported, and the watch starts after it.
 */
class HealthDuringOutagesIT {

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration OUTAGE = Duration.ofSeconds(12);

    @Test
    void everyHealthEndpointAnswersWithinOneSecondThroughOutages() throws Exception {
        int port = FaultTestSettings.freePort();
        try (ThrowawayPostgres postgres = ThrowawayPostgres.create();
                TestDatabase db = TestDatabase.createOn(postgres.serverUrl());
                KafkaBroker broker = KafkaBroker.start()) {
            postgres.stop();
            try (RelayProcess relay = RelayProcess.startJar(
                    FaultTestSettings.environment(db, broker.bootstrapServers(), "health"),
                    FaultTestSettings.managementPort(port))) {
                // the relay starts while its database is down; from its first answer on, every answer counts
                relay.awaitOutput("(outbox-relay) started", Duration.ofSeconds(60));
                long start = System.nanoTime();
                int first = FaultTestSettings.readiness(port);
                System.out.printf("HealthDuringOutagesIT: first answer after start %d (%d ms)%n", first,
                        (System.nanoTime() - start) / 1_000_000);
                watch(relay, postgres, broker, new HealthWatcher(port));
            }
        }
    }

    private static void watch(RelayProcess relay, ThrowawayPostgres postgres, KafkaBroker broker, HealthWatcher watcher)
            throws Exception {
        try (watcher) {
            watcher.phase("database down at start");
            await().atMost(Duration.ofSeconds(60)).until(() -> watcher.lastStatus("ready") == 503);
            staysDown(watcher);
            postgres.start();
            watcher.phase("database back");
            await().atMost(Duration.ofSeconds(60)).until(() -> watcher.lastStatus("ready") == 200);

            outage(watcher, "database restart", postgres::stop, postgres::start);
            outage(watcher, "broker down", broker::stop, broker::restart);
            watcher.phase("all up");
            await("answers with everything up").atMost(Duration.ofSeconds(30))
                    .until(() -> watcher.answers("all up", "ready") >= 10);
            watcher.stop();

            System.out.println("HealthDuringOutagesIT: slowest answer per phase and endpoint (ms)\n"
                    + watcher.report());
            assertEquals(List.of(), watcher.failures(), "every answer within " + PROBE_TIMEOUT);
            for (String phase : List.of("database down at start", "database restart", "broker down")) {
                assertTrue(watcher.statuses(phase, "ready").contains(503), phase + ": readiness DOWN");
                assertEquals(List.of(200), watcher.statuses(phase, "live"), phase + ": liveness UP throughout");
                assertTrue(watcher.statuses(phase, "health").contains(503), phase + ": overall DOWN");
            }
            assertEquals(List.of(200), watcher.statuses("all up", "ready"));
            assertTrue(relay.isAlive());
        }
    }

    /** Stops a dependency until readiness reports it, keeps it down for {@link #OUTAGE}, then brings it back. */
    private static void outage(HealthWatcher watcher, String phase, Runnable stop, Runnable start)
            throws InterruptedException {
        stop.run();
        watcher.phase(phase);
        await().atMost(Duration.ofSeconds(30)).until(() -> watcher.lastStatus("ready") == 503);
        staysDown(watcher);
        start.run();
        await().atMost(Duration.ofSeconds(60)).until(() -> watcher.lastStatus("ready") == 200);
    }

    /**
     * Keeps the outage for {@link #OUTAGE} (the probes' and the pool's timeouts come round), readiness DOWN throughout.
     */
    private static void staysDown(HealthWatcher watcher) {
        await("readiness DOWN throughout the outage").during(OUTAGE).atMost(OUTAGE.plusSeconds(5))
                .until(() -> watcher.lastStatus("ready") == 503);
    }

    /** Asks /observe/health, /live and /ready in turn until stopped; records status and time of every answer. */
    private static final class HealthWatcher implements AutoCloseable {

        private static final Map<String, String> PATHS = Map.of(
                "health", "/observe/health", "live", "/observe/health/live", "ready", "/observe/health/ready");

        private final HttpClient http = HttpClient.newBuilder().connectTimeout(PROBE_TIMEOUT).build();
        private final int port;
        private final ScheduledExecutorService rounds = Executors.newSingleThreadScheduledExecutor();
        private final List<Answer> answers = new ArrayList<>();
        private final List<String> failures = new ArrayList<>();
        private volatile String phase = "starting";
        private volatile boolean listening;

        record Answer(String phase, String endpoint, int status, long millis) {
        }

        HealthWatcher(int port) {
            this.port = port;
            // a round of the three endpoints every 100 ms after the previous one ended
            rounds.scheduleWithFixedDelay(() -> List.of("health", "live", "ready").forEach(this::ask), 0, 100,
                    TimeUnit.MILLISECONDS);
        }

        void phase(String name) {
            phase = name;
        }

        private void ask(String endpoint) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + PATHS.get(endpoint)))
                    .timeout(PROBE_TIMEOUT).build();
            long start = System.nanoTime();
            try {
                int status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                listening = true;
                synchronized (answers) {
                    answers.add(new Answer(phase, endpoint, status, (System.nanoTime() - start) / 1_000_000));
                }
            } catch (HttpTimeoutException e) {
                synchronized (answers) {
                    failures.add(phase + ": " + endpoint + " did not answer within " + PROBE_TIMEOUT);
                }
            } catch (IOException e) {
                // not listening yet (the relay is starting); once it answered, a refused connection is a failure
                if (listening) {
                    synchronized (answers) {
                        failures.add(phase + ": " + endpoint + " refused: " + e);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        int lastStatus(String endpoint) {
            synchronized (answers) {
                for (int i = answers.size() - 1; i >= 0; i--) {
                    if (answers.get(i).endpoint().equals(endpoint)) {
                        return answers.get(i).status();
                    }
                }
            }
            return -1;
        }

        long answers(String phase, String endpoint) {
            synchronized (answers) {
                return answers.stream().filter(a -> a.phase().equals(phase) && a.endpoint().equals(endpoint)).count();
            }
        }

        List<Integer> statuses(String phase, String endpoint) {
            synchronized (answers) {
                return answers.stream().filter(a -> a.phase().equals(phase) && a.endpoint().equals(endpoint))
                        .map(Answer::status).distinct().sorted().toList();
            }
        }

        List<String> failures() {
            synchronized (answers) {
                return List.copyOf(failures);
            }
        }

        String report() {
            Map<String, Map<String, Long>> slowest = new TreeMap<>();
            Map<String, Integer> counts = new TreeMap<>();
            synchronized (answers) {
                for (Answer a : answers) {
                    slowest.computeIfAbsent(a.phase(), p -> new TreeMap<>()).merge(a.endpoint(), a.millis(), Math::max);
                    counts.merge(a.phase(), 1, Integer::sum);
                }
            }
            StringBuilder text = new StringBuilder();
            slowest.forEach((phase, byEndpoint) -> text.append("  ").append(phase).append(" (")
                    .append(counts.get(phase)).append(" answers): ").append(byEndpoint).append('\n'));
            return text.toString();
        }

        void stop() throws InterruptedException {
            rounds.shutdown();
            rounds.awaitTermination(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
