package io.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
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
 * Arguments: JDBC URL, Kafka bootstrap servers, batch size, linger.ms, batch.size, compression.
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

    private PlainRelay() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int batchSize = Integer.parseInt(args[2]);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, args[3]);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, args[4]);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, args[5]);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p);
                Connection c = DriverManager.getConnection(url, "postgres", "");
                PreparedStatement claim = c.prepareStatement(CLAIM);
                PreparedStatement mark = c.prepareStatement(MARK)) {
            c.createStatement().execute("SET jit = off");
            c.setAutoCommit(false);
            // its own claim index (the relay's is per partition): a plain relay's author would add it
            c.createStatement().execute("CREATE INDEX IF NOT EXISTS outbox_plain_pending_seq ON outbox (seq) "
                    + "WHERE status = 'PENDING'");
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
                mark.setArray(1, c.createArrayOf("uuid", ids.toArray()));
                mark.executeUpdate();
                c.commit();
            }
        }
    }

    private static void header(ProducerRecord<String, byte[]> record, String name, String value) {
        record.headers().add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
