package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The benchmarks' plain-Java baseline: a batched JDBC + Kafka relay in one loop, no Camel, run as its own process like
 * the relay. In one transaction: claim a batch (FOR UPDATE SKIP LOCKED, the row locks held until the mark), send every
 * event with the same record as the relay (key, payload, CloudEvents headers) and the relay's producer settings, all
 * in flight at once, wait for all acknowledgements, mark the batch, commit: one row write per event, as the relay.
 * What it does not do: per-key order across instances (two instances may hold events of one key), failure
 * bookkeeping, backoff, a held-back key, wake-up on insert (it polls every 10 ms when idle), health, metrics.
 * <p>
 * On MariaDB (a jdbc:mariadb: URL) it is written as a MariaDB user would: a READ COMMITTED session (under InnoDB's
 * default REPEATABLE READ the claim's next-key locks block the writers' INSERTs), an index (status, seq) that the
 * claim walks in order (without one, SKIP LOCKED locks every pending row it sorts), now(6), and the mark's ids as an
 * IN list (no arrays).
 * <p>
 * Arguments: JDBC URL, user, Kafka bootstrap servers, batch size, linger.ms, batch.size, compression.
 */
public final class PlainRelay {

    private static final String CLAIM = """
            SELECT id::text, aggregate_type, aggregate_id, event_type, payload::text, headers::text, created_at
              FROM outbox
             WHERE status = 'PENDING' AND next_attempt_at <= now()
             ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED""";
    private static final String MARK = """
            UPDATE outbox SET status = 'PUBLISHED', published_at = now()
             WHERE id = ANY(CAST(? AS uuid[]))""";
    /**
     * FORCE INDEX: the relay's (status, published_at) index matches status = 'PENDING' too, and a claim that read
     * the pending rows through it would sort them by seq, locking every one of them.
     */
    private static final String MARIADB_CLAIM = """
            SELECT id, aggregate_type, aggregate_id, event_type, payload, headers, created_at
              FROM outbox FORCE INDEX (outbox_plain_pending_seq)
             WHERE status = 'PENDING' AND next_attempt_at <= now(6)
             ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED""";
    private static final String MARIADB_MARK = "UPDATE outbox SET status = 'PUBLISHED', published_at = now(6) "
            + "WHERE id IN (%s)";

    private PlainRelay() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        boolean mariadb = url.startsWith("jdbc:mariadb:");
        int batchSize = Integer.parseInt(args[3]);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[2]);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, args[4]);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, args[5]);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, args[6]);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p);
                Connection c = DriverManager.getConnection(url, args[1], "")) {
            if (mariadb) {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                c.createStatement().execute("CREATE INDEX IF NOT EXISTS outbox_plain_pending_seq "
                        + "ON outbox (status, seq)");
            } else {
                c.createStatement().execute("SET jit = off");
                // its own claim index (the relay's is per partition): a plain relay's author would add it
                c.createStatement().execute("CREATE INDEX IF NOT EXISTS outbox_plain_pending_seq ON outbox (seq) "
                        + "WHERE status = 'PENDING'");
            }
            c.setAutoCommit(false);
            run(c, producer, batchSize, mariadb);
        }
    }

    private static void run(Connection c, KafkaProducer<String, byte[]> producer, int batchSize, boolean mariadb)
            throws Exception {
        Map<Integer, PreparedStatement> marks = new HashMap<>();
        try (PreparedStatement claim = c.prepareStatement(mariadb ? MARIADB_CLAIM : CLAIM)) {
            System.out.println("plain relay started");
            while (true) {
                claim.setInt(1, batchSize);
                List<String> ids = new ArrayList<>(batchSize);
                List<Future<?>> acks = new ArrayList<>(batchSize);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        String id = rs.getString(1);
                        ProducerRecord<String, byte[]> record = new ProducerRecord<>("outbox.event." + rs.getString(2),
                                rs.getString(3), rs.getString(5).getBytes(StandardCharsets.UTF_8));
                        header(record, "ce_id", id);
                        header(record, "ce_type", rs.getString(4));
                        header(record, "ce_source", "/outbox");
                        header(record, "ce_subject", rs.getString(3));
                        header(record, "ce_time",
                                DateTimeFormatter.ISO_INSTANT.format(rs.getTimestamp(7).toInstant()));
                        header(record, "ce_specversion", "1.0");
                        header(record, "ce_aggregatetype", rs.getString(2));
                        header(record, "content-type", "application/json");
                        acks.add(producer.send(record));
                        ids.add(id);
                    }
                }
                if (ids.isEmpty()) {
                    c.commit();
                    Thread.sleep(10);
                    continue;
                }
                for (Future<?> ack : acks) {
                    ack.get();
                }
                mark(c, marks, ids, mariadb).executeUpdate();
                c.commit();
            }
        }
    }

    /** The mark of these ids: a uuid[] on PostgreSQL; on MariaDB an IN list, prepared once per batch length. */
    private static PreparedStatement mark(Connection c, Map<Integer, PreparedStatement> marks, List<String> ids,
            boolean mariadb) throws Exception {
        PreparedStatement mark = marks.get(mariadb ? ids.size() : 0);
        if (mark == null) {
            mark = c.prepareStatement(mariadb ? String.format(MARIADB_MARK, String.join(", ",
                    Collections.nCopies(ids.size(), "?"))) : MARK);
            marks.put(mariadb ? ids.size() : 0, mark);
        }
        if (mariadb) {
            for (int i = 0; i < ids.size(); i++) {
                mark.setString(i + 1, ids.get(i));
            }
        } else {
            mark.setArray(1, c.createArrayOf("uuid", ids.toArray()));
        }
        return mark;
    }

    private static void header(ProducerRecord<String, byte[]> record, String name, String value) {
        record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
