package io.outboxrelay.event;

import java.lang.reflect.Proxy;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import io.outboxrelay.sql.OutboxSql;
import org.apache.camel.component.sql.DefaultRowMapperFactory;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.RowMapper;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** camel-sql's row mapping of the claim: each column of sql/claim.sql into its OutboxEvent field. */
class OutboxEventRowsTest {

    private final OutboxEvent.Rows rows = new OutboxEvent.Rows();

    @Test
    void aClaimedRowBecomesAnEvent() throws SQLException {
        Map<String, Object> row = new HashMap<>();
        row.put("id", "0b7c1f0e-0000-4000-8000-000000000001");
        row.put("seq", 42L);
        row.put("partition_number", 7);
        row.put("aggregate_type", "order");
        row.put("aggregate_id", "o-1");
        row.put("event_type", "OrderPlaced");
        row.put("payload", "{\"a\":1}");
        row.put("headers", "{\"h\":\"v\"}");
        row.put("created_at", OffsetDateTime.of(2024, 1, 2, 3, 4, 5, 0, ZoneOffset.ofHours(2)));
        row.put("attempts", 3);
        row.put("holds_key", true);

        OutboxEvent event = (OutboxEvent) rows.newBeanRowMapper(OutboxEvent.class).mapRow(resultSet(row), 0);

        assertEquals(new OutboxEvent("0b7c1f0e-0000-4000-8000-000000000001", 42, 7, "order", "o-1", "OrderPlaced",
                "{\"a\":1}", "{\"h\":\"v\"}", Instant.parse("2024-01-02T01:04:05Z"), 3, true), event);
    }

    @Test
    void everyColumnItReadsIsSelectedByTheClaim() {
        String claim = OutboxSql.resolved("claim", Map.of("outbox.table", "outbox"));
        String select = claim.substring(claim.indexOf("SELECT e.id"), claim.indexOf("FROM unnest"));

        // the partition is the grant's: the claim reads a partition's rows by the key's computed partition (V9)
        for (String column : new String[] {"e.id", "e.seq", "g.partition_number", "e.aggregate_type",
                "e.aggregate_id", "e.event_type", "AS payload", "AS headers", "e.created_at", "e.attempts",
                "AS holds_key"}) {
            assertTrue(select.contains(column), column + " in " + select);
        }
    }

    @Test
    void otherClassesAreMappedAsCamelSqlMapsThem() {
        RowMapper<?> other = rows.newBeanRowMapper(Row.class);

        assertNotSame(rows.newBeanRowMapper(OutboxEvent.class), other);
        assertEquals(new DefaultRowMapperFactory().newBeanRowMapper(Row.class).getClass(), other.getClass());
    }

    /** Some other output class of a camel-sql query. */
    public static class Row {
        private String status;

        public String getStatus() {
            return status;
        }

        public void setStatus(String status) {
            this.status = status;
        }
    }

    /** A one-row ResultSet answering the getters the mapper uses, by column name. */
    private static ResultSet resultSet(Map<String, Object> row) {
        return (ResultSet) Proxy.newProxyInstance(ResultSet.class.getClassLoader(), new Class<?>[] {ResultSet.class},
                (proxy, method, args) -> {
                    if (args == null || !(args[0] instanceof String column) || !row.containsKey(column)) {
                        throw new SQLException("unexpected call " + method.getName());
                    }
                    Object value = row.get(column);
                    return switch (method.getName()) {
                        case "getString" -> (String) value;
                        case "getLong" -> ((Number) value).longValue();
                        case "getInt" -> ((Number) value).intValue();
                        case "getBoolean" -> (Boolean) value;
                        case "getObject" -> ((Class<?>) args[1]).cast(value);
                        default -> throw new SQLException("unexpected call " + method.getName());
                    };
                });
    }
}
