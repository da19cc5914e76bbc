package io.outboxrelay.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The relay's own meters, beside Camel's route metrics. Prometheus names: outbox_claims_total,
 * outbox_events_claimed_total, outbox_events_published_total, outbox_publish_failures_total, outbox_events_failed_total, outbox_backlog_events, outbox_failed_events,
 * outbox_oldest_pending_age_seconds, outbox_keys_held_back and the outbox_commit_to_ack_seconds histogram.
 */
public class RelayMetrics {

    private final Counter claims;
    private final Counter claimed;
    private final Counter published;
    private final Counter publishFailures;
    private final Counter eventsFailed;
    private final Timer commitToAck;
    private final AtomicLong backlog = new AtomicLong();
    private final AtomicLong failedRows = new AtomicLong();
    private final AtomicLong oldestPendingAgeMillis = new AtomicLong();
    private final AtomicLong keysHeldBack = new AtomicLong();

    public RelayMetrics(MeterRegistry registry) {
        claims = Counter.builder("outbox.claims")
                .description("Claim statements that returned rows").register(registry);
        claimed = Counter.builder("outbox.events.claimed")
                .description("Events claimed (a released event that is claimed again counts again)").register(registry);
        published = Counter.builder("outbox.events.published")
                .description("Events the broker acknowledged").register(registry);
        publishFailures = Counter.builder("outbox.publish.failures")
                .description("Publish attempts that failed after in-process redeliveries").register(registry);
        eventsFailed = Counter.builder("outbox.events.failed")
                .description("Events that reached FAILED status").register(registry);
        commitToAck = Timer.builder("outbox.commit.to.ack")
                .description("From the event's created_at to the broker's acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(10))
                .register(registry);
        Gauge.builder("outbox.backlog", backlog, AtomicLong::get).baseUnit("events")
                .description("PENDING rows").register(registry);
        Gauge.builder("outbox.failed", failedRows, AtomicLong::get).baseUnit("events")
                .description("FAILED rows").register(registry);
        Gauge.builder("outbox.oldest.pending.age", oldestPendingAgeMillis, v -> v.get() / 1000.0).baseUnit("seconds")
                .description("Age of the oldest PENDING row").register(registry);
        Gauge.builder("outbox.keys.held.back", keysHeldBack, AtomicLong::get)
                .description("Keys whose later events wait behind an event being retried (or FAILED, when it blocks)")
                .register(registry);
    }

    /** @param batch the rows one claim statement returned; the body passes through unchanged */
    public void claimed(List<?> batch) {
        claims.increment();
        claimed.increment(batch.size());
    }

    public void published(Instant createdAt) {
        published.increment();
        commitToAck.record(Duration.between(createdAt, Instant.now()));
    }

    /** @param status the row's status after the failure was recorded: PENDING (will retry) or FAILED */
    public void publishFailed(String status) {
        publishFailures.increment();
        if ("FAILED".equals(status)) {
            eventsFailed.increment();
        }
    }

    /** @param stats one row of sql/backlog-stats.sql */
    public void backlog(Map<String, Object> stats) {
        backlog.set(((Number) stats.get("pending")).longValue());
        failedRows.set(((Number) stats.get("failed")).longValue());
        keysHeldBack.set(((Number) stats.get("keys_held_back")).longValue());
        oldestPendingAgeMillis.set(Math.round(((Number) stats.get("oldest_pending_age_seconds")).doubleValue() * 1000));
    }
}
