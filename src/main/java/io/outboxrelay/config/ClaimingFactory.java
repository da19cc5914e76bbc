package io.outboxrelay.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

import javax.sql.DataSource;

import io.outboxrelay.claim.Claiming;
import io.outboxrelay.claim.PartitionOwnership;
import io.outboxrelay.failure.FailureBookkeeping;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.BrokerOutage;
import io.outboxrelay.schema.SchemaMigration;
import io.outboxrelay.sql.OutboxSql;
import org.apache.camel.CamelContext;

/**
 * Builds what the outbox: component's claim loop works with, from validated settings: for the relay's own main (with
 * its broker gate and metrics), and for an outbox: endpoint used on its own, as the Kamelet uses it, from the
 * endpoint's parameters over the relay's defaults. Both run the same statements with the same values.
 */
public final class ClaimingFactory {

    private static final String PREFIX = "outbox.";

    private ClaimingFactory() {
    }

    /** The validated settings that the SQL statements splice into their text, by placeholder. */
    public static Map<String, String> sqlValues(RelaySettings settings) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("outbox.table", settings.table().qualified());
        values.put("outbox.batch-size", Integer.toString(settings.batchSize()));
        values.put("outbox.partitions", Integer.toString(settings.partitions()));
        values.put("outbox.instance.stale-after", settings.staleAfter().toString());
        values.put("outbox.lease", settings.lease().toString());
        values.put("outbox.max-attempts", Integer.toString(settings.maxAttempts()));
        values.put("outbox.backoff.initial", settings.backoffInitial().toString());
        values.put("outbox.backoff.max", settings.backoffMax().toString());
        values.put("outbox.failed-blocks-key", Boolean.toString(settings.failedBlocksKey()));
        values.put("outbox.retention", settings.retention().toString());
        values.put("outbox.retention.batch-size", Integer.toString(settings.retentionBatchSize()));
        values.put("outbox.instance-id", settings.instanceId());
        return values;
    }

    static Claiming forRelay(CamelContext context, RelaySettings settings, DataSource dataSource, SchemaMigration schema,
            BrokerOutage brokerOutage, RelayMetrics metrics, boolean pipelined, Duration drainTimeout) {
        Map<String, String> sql = sqlValues(settings);
        PartitionOwnership ownership = new PartitionOwnership(context, dataSource,
                OutboxSql.resolved("heartbeat", sql), OutboxSql.resolved("leave", sql), settings.heartbeat(),
                settings.lease(), metrics == null ? (owned, taken, givenUp, instances) -> { } : metrics::owned);
        return new Claiming(dataSource, settings.table(), OutboxSql.resolved("claim", sql),
                OutboxSql.resolved("release", sql), OutboxSql.resolved("release-lost", sql), ownership,
                new FailureBookkeeping(OutboxSql.resolved("record-failure", sql), metrics), settings.batchSize(),
                Duration.ofMillis(settings.pollDelayMs()), drainTimeout, pipelined, schema::isReady, brokerOutage,
                metrics);
    }

    /**
     * For {@code outbox:events?db.url=...&table=...}: every parameter is a relay setting without its "outbox."
     * prefix; what is not given comes from the context's properties, then from the relay's own defaults
     * (application.properties in its jar). The events go one at a time (the destination is not known here), and
     * nothing pauses claims for a broker.
     */
    public static Claiming standalone(CamelContext context, Map<String, Object> parameters) {
        Properties defaults = defaults();
        Map<String, Object> given = new LinkedHashMap<>(parameters);
        parameters.clear();
        Function<String, Optional<String>> property = key -> {
            Object value = key.startsWith(PREFIX) ? given.get(key.substring(PREFIX.length())) : null;
            if (value != null) {
                return Optional.of(value.toString());
            }
            Optional<String> configured = context.getPropertiesComponent().resolveProperty(key);
            return configured.isPresent() ? configured : Optional.ofNullable(defaults.getProperty(key));
        };
        RelaySettings settings = RelaySettings.read(property, scheme -> true);
        DataSource dataSource = RelayConfiguration.dataSource(settings);
        SchemaMigration schema = new SchemaMigration(dataSource, settings.table(), settings.partitions(),
                settings.migrate());
        schema.isReady();
        return forRelay(context, settings, dataSource, schema, null, null, false, Duration.ofSeconds(25));
    }

    private static Properties defaults() {
        Properties defaults = new Properties();
        try (InputStream in = ClaimingFactory.class.getClassLoader().getResourceAsStream("application.properties")) {
            if (in != null) {
                defaults.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return defaults;
    }
}
