package io.outboxrelay.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * One Kafka broker for the whole test JVM (a cold start costs seconds); tests keep apart by database and topic.
 */
public final class SharedKafka {

    private static KafkaBroker broker;

    private SharedKafka() {
    }

    public static synchronized KafkaBroker broker() {
        if (broker == null) {
            broker = KafkaBroker.start();
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close));
        }
        return broker;
    }

    /** Reads a topic from the beginning until {@code expected} records arrived or the timeout passed. */
    public static List<ConsumerRecord<String, byte[]>> read(String topic, int expected, Duration timeout) {
        return read(broker().bootstrapServers(), topic, expected, timeout);
    }

    public static List<ConsumerRecord<String, byte[]>> read(String bootstrapServers, String topic, int expected,
            Duration timeout) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .collect(Collectors.toList());
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            // everything the topic holds: at least the expected records, and up to the end offsets (duplicates
            // included, which a stop at the expected count would hide behind "missing" records)
            while (System.nanoTime() < deadline
                    && (records.size() < expected || !caughtUp(consumer, consumer.endOffsets(partitions)))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static boolean caughtUp(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> endOffsets) {
        return endOffsets.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }

    public static Map<String, String> headers(ConsumerRecord<?, ?> record) {
        return java.util.stream.StreamSupport.stream(record.headers().spliterator(), false)
                .collect(Collectors.toMap(h -> h.key(),
                        h -> new String(h.value(), java.nio.charset.StandardCharsets.UTF_8),
                        (a, b) -> b));
    }

    /**
     * The outbox row a record was published from, named by its ce_id; asserts that the record's key and value are the
     * row's aggregate_id and payload.
     *
     * @param rowsById rows with at least id, aggregate_id and payload (as text), by id
     */
    public static Map<String, Object> rowOf(ConsumerRecord<String, byte[]> record,
            Map<String, Map<String, Object>> rowsById) {
        Map<String, String> headers = headers(record);
        Map<String, Object> row = rowsById.get(headers.get("ce_id"));
        org.junit.jupiter.api.Assertions.assertNotNull(row, "ce_id names a row: " + headers);
        org.junit.jupiter.api.Assertions.assertEquals(row.get("aggregate_id"), record.key());
        org.junit.jupiter.api.Assertions.assertEquals(row.get("payload"),
                new String(record.value(), java.nio.charset.StandardCharsets.UTF_8));
        return row;
    }
}
