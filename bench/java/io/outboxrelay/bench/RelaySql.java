package io.outboxrelay.bench;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.outboxrelay.sql.OutboxSql;

/**
 * The relay's own statements (src/main/resources/sql/postgresql) for plain JDBC: the table name resolved as the
 * relay resolves it, and each camel-sql named parameter replaced by the value the relay binds, as SQL text, for an
 * instance "bench" that owns every partition and claims all of them at once.
 */
final class RelaySql {

    private static final Pattern NAMED = Pattern.compile(":#(\\$\\{[^}]*}|\\w+)");

    private RelaySql() {
    }

    static String heartbeat() {
        return resolve("heartbeat", Map.of("inFlight", "0", "drained", "'{}'"));
    }

    /** A claim of every partition, an even share of outbox.batch-size each. */
    static String claimAll() {
        int partitions = Integer.parseInt(RelaySettingsFile.get("outbox.partitions", "32"));
        int batch = Integer.parseInt(RelaySettingsFile.get("outbox.batch-size", "1000"));
        return resolve("claim", Map.of(
                "partitions", "(SELECT array_agg(n) FROM generate_series(0, "
                        + (partitions - 1) + ") n)",
                "perPartition", Integer.toString(Math.max(1, batch / partitions))));
    }

    /** The mark, its ids as the one positional parameter (a uuid[]). */
    static String mark() {
        return resolve("mark", Map.of("ids", "?"));
    }

    static String deleteExpired() {
        return resolve("delete-expired", Map.of());
    }

    static String archiveExpired() {
        return resolve("archive-expired", Map.of());
    }

    static String archiveAddPartitions() {
        return resolve("archive-add-partitions", Map.of());
    }

    private static String resolve(String name, Map<String, String> values) {
        String sql = OutboxSql.resolved(name, Map.of("outbox.table", "outbox"));
        Map<String, String> settings = Map.of(
                "${bean:relaySettings.instanceId}", "'bench'",
                "${bean:relaySettings.failedBlocksKey}", "false",
                "${bean:relaySettings.partitions}", RelaySettingsFile.get("outbox.partitions", "32"),
                "${bean:relaySettings.staleAfterInterval}", "'PT30S'",
                "${bean:relaySettings.leaseInterval}", "'PT60S'",
                "${bean:relaySettings.retentionInterval}", "'" + RelaySettingsFile.get("outbox.retention", "P7D") + "'",
                "${bean:relaySettings.retentionBatchSize}",
                RelaySettingsFile.get("outbox.retention.batch-size", "5000"));
        Matcher m = NAMED.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.containsKey(m.group(1)) ? values.get(m.group(1)) : settings.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("sql/" + name + ".sql: no bench value for " + m.group());
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
