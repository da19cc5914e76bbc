package io.outboxrelay.metrics;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.ExchangeProperty;

/**
 * The relay's own meters, beside Camel's route metrics. Prometheus names: outbox_claims_total,
 * outbox_events_claimed_total, outbox_events_published_total, outbox_publish_failures_total,
 * outbox_events_failed_total, outbox_backlog_events, outbox_failed_events, outbox_oldest_pending_age_seconds,
 * outbox_keys_held_back, outbox_partitions_owned, outbox_instances_live, outbox_partitions_taken_total,
 * outbox_partitions_given_up_total, outbox_archive_rows_archived_total, outbox_archive_rows (an estimate) and the
 * outbox_commit_to_ack_seconds histogram.
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
    private final AtomicLong ownedPartitions = new AtomicLong();
    private final AtomicLong liveInstances = new AtomicLong();
    private final Counter partitionsTaken;
    private final Counter partitionsGivenUp;
    private final Counter archived;
    private final AtomicLong archiveRows = new AtomicLong();

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
        Gauge.builder("outbox.partitions.owned", ownedPartitions, AtomicLong::get)
                .description("Partitions this instance owns (claims from)").register(registry);
        Gauge.builder("outbox.instances.live", liveInstances, AtomicLong::get)
                .description("Relay instances sharing the partitions, as this instance's last heartbeat saw them")
                .register(registry);
        partitionsTaken = Counter.builder("outbox.partitions.taken")
                .description("Partitions this instance took (at start, or from an instance that left or died)")
                .register(registry);
        partitionsGivenUp = Counter.builder("outbox.partitions.given.up")
                .description("Partitions this instance gave up or lost (to another instance, or when stopping)")
                .register(registry);
        Gauge.builder("outbox.keys.held.back", keysHeldBack, AtomicLong::get)
                .description("Keys whose later events wait behind an event being retried (or FAILED, when it blocks)")
                .register(registry);
        archived = Counter.builder("outbox.archive.rows.archived")
                .description("Published rows this instance moved to the archive table").register(registry);
        Gauge.builder("outbox.archive.rows", archiveRows, AtomicLong::get)
                .description("Rows in the archive table, estimated from the table statistics (pg_class.reltuples of "
                        + "its partitions, as of their last vacuum or analyze): cheap at any size")
                .register(registry);
    }

    /** An archive batch moved this many rows (the retention route's step). */
    public void archived(int rows) {
        archived.increment(rows);
    }

    /** A claim statement's batch (the claim route's step). */
    public void countClaimed(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        if (batch.size() > 0) {
            claims.increment();
            claimed.increment(batch.size());
        }
    }

    /** This instance's partitions after a heartbeat, and how many changed hands in it. */
    public void owned(int partitions, int taken, int givenUp, int instances) {
        ownedPartitions.set(partitions);
        liveInstances.set(instances);
        if (taken > 0) {
            partitionsTaken.increment(taken);
        }
        if (givenUp > 0) {
            partitionsGivenUp.increment(givenUp);
        }
    }

    /** The batch's acknowledged events were marked PUBLISHED (the claim route's step). */
    public void countPublished(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        Instant now = Instant.now();
        for (OutboxEvent event : batch.publishedEvents()) {
            published.increment();
            commitToAck.record(Duration.between(event.createdAt(), now));
        }
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
        archiveRows.set(((Number) stats.get("archive_rows_estimate")).longValue());
    }
}
