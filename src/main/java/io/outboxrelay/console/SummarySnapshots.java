package io.outboxrelay.console;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The summary as GET /outbox/api/summary serves it: the latest one computed, refreshed in the background when it is
 * older than the backlog gauges' interval (outbox.metrics.refresh-ms, at least 1 s) and someone asks. Counting a
 * large backlog takes the database a while (most of a second under a full drain on two cores): an answer never waits
 * for it, and however many pages are open the database computes at most one summary per interval. The first one is
 * computed when the relay starts; a request waits only when there is none, or the latest is older than
 * {@value #TOO_OLD} intervals (nobody looked for a long while: old figures would mislead). The answer says when it was
 * computed and how long that took.
 */
public final class SummarySnapshots {

    private static final Duration SHORTEST = Duration.ofSeconds(1);
    static final int TOO_OLD = 10;
    private static final Logger LOG = LoggerFactory.getLogger(SummarySnapshots.class);

    private record Snapshot(Map<String, Object> summary, Instant at, long computeMillis) {
    }

    private final OutboxSummary summary;
    private final Executor background;
    private final Duration maxAge;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile Snapshot latest;

    SummarySnapshots(OutboxSummary summary, Executor background, Duration maxAge) {
        this.summary = summary;
        this.background = background;
        this.maxAge = maxAge.compareTo(SHORTEST) < 0 ? SHORTEST : maxAge;
    }

    public Map<String, Object> summary() throws Exception {
        Snapshot snapshot = latest;
        Instant now = Instant.now();
        if (snapshot == null || snapshot.at().plus(maxAge.multipliedBy(TOO_OLD)).isBefore(now)) {
            snapshot = compute();
        } else if (snapshot.at().plus(maxAge).isBefore(now)) {
            refreshInBackground();
        }
        Map<String, Object> answer = new LinkedHashMap<>(snapshot.summary());
        answer.put("computedAt", snapshot.at().toString());
        answer.put("computeMillis", snapshot.computeMillis());
        return answer;
    }

    /** Computes a summary in the background, unless one is being computed. */
    void refreshInBackground() {
        if (refreshing.compareAndSet(false, true)) {
            background.execute(() -> {
                try {
                    compute();
                } catch (Exception e) {
                    LOG.warn("Console summary not refreshed (the last one is served): {}", e.toString());
                } finally {
                    refreshing.set(false);
                }
            });
        }
    }

    private Snapshot compute() throws Exception {
        Instant at = Instant.now();
        long start = System.nanoTime();
        Snapshot snapshot = new Snapshot(summary.summary(), at, (System.nanoTime() - start) / 1_000_000);
        latest = snapshot;
        return snapshot;
    }
}
