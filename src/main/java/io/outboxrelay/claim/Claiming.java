package io.outboxrelay.claim;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import javax.sql.DataSource;

import io.outboxrelay.config.TableName;
import io.outboxrelay.failure.FailureBookkeeping;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerOutage;

/**
 * What the claim loop works with: the database and its statements, this instance's partitions, the limits, and the
 * gates that pause claiming (schema not in place yet, broker down). Built once from the validated settings.
 *
 * @param batchSize    events claimed and not yet marked, at most (outbox.batch-size)
 * @param pollDelay    the safety-net rescan interval (outbox.poll-delay-ms)
 * @param drainTimeout how long a stopping instance waits for its events in flight
 * @param pipelined    whether a key's next event may go before the previous one is acknowledged (a transport that
 *                     keeps send order: the idempotent Kafka producer)
 * @param metrics      may be null (the Kamelet has no meter registry of the relay's)
 */
public record Claiming(DataSource dataSource, TableName table, String claimSql, String releaseSql,
        String releaseLostSql, PartitionOwnership ownership,
        FailureBookkeeping failures, int batchSize, Duration pollDelay, Duration drainTimeout, boolean pipelined,
        BooleanSupplier schemaReady, BrokerOutage brokerOutage, RelayMetrics metrics) {

    boolean mayClaim() {
        // the schema first: while it is not in place (the database was down at start) nothing owns partitions
        return schemaReady.getAsBoolean() && !ownership.owned().isEmpty()
                && (brokerOutage == null || brokerOutage.mayClaim());
    }

    boolean brokerDown() {
        return brokerOutage != null && brokerOutage.isDown();
    }

    void claimed(int events) {
        if (metrics != null) {
            metrics.claimed(events);
        }
    }

    void published(OutboxEvent event) {
        if (metrics != null) {
            metrics.published(event.createdAt());
        }
    }
}
