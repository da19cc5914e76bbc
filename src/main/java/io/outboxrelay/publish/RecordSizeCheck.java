package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * Refuses, before it is sent, an event its Kafka topic would reject as too large. A record the broker rejects after
 * it was sent cannot be held back: the events of its key sent behind it in the same batch would be delivered first.
 * Found before sending, the event and its key's later events of the batch are sent one by one instead, the event
 * fails alone (RecordTooLargeException, recorded like any failed attempt) and its key waits.
 * <p>
 * Kafka's public API cannot tell how large a record batch the broker will see: the sizes come from the client's record
 * classes (AbstractRecords, MemoryRecords), as the broker measures them. Records well below the limit are not
 * compressed twice: only one whose uncompressed upper bound exceeds the limit is measured exactly.
 */
public class RecordSizeCheck {

    /** A record batch's header (61 bytes) and a record's own fields (at most 21 bytes), rounded up. */
    private static final int RECORD_OVERHEAD = 128;

    private final Destinations destinations;
    private final TopicLimits limits;
    private final CompressionType compression;

    /** @param compressionType the producer's compression.type (none, gzip, snappy, lz4, zstd), or null */
    public RecordSizeCheck(Destinations destinations, TopicLimits limits, String compressionType) {
        this.destinations = destinations;
        this.limits = limits;
        this.compression = compressionType == null || compressionType.isBlank() ? CompressionType.NONE
                : CompressionType.forName(compressionType.trim());
    }

    /**
     * The publish-event route's step.
     *
     * @throws RecordTooLargeException the event's topic would reject it
     */
    public void check(Exchange exchange) {
        String uri = destinations.uri(exchange);
        if (!Destinations.isKafka(uri)) {
            return;
        }
        String topic = Destinations.kafkaTopic(uri);
        Optional<Integer> limit = limits.limit(topic);
        if (limit.isEmpty() || fits(exchange.getMessage(), limit.get())) {
            return;
        }
        // rare: worth asking the cluster whether the topic's limit was raised since
        limit = limits.refresh(topic);
        Message message = exchange.getMessage();
        if (limit.isPresent() && !fits(message, limit.get())) {
            throw new RecordTooLargeException("The record is " + exactSize(message) + " bytes"
                    + (compression == CompressionType.NONE ? "" : " after " + compression.name + " compression")
                    + ", more than topic " + topic + " accepts (max.message.bytes " + limit.get()
                    + "); it was not sent");
        }
    }

    /** Whether the event fits its topic (a topic whose limit is unknown takes anything). */
    public boolean fits(String uri, Message message) {
        Optional<Integer> limit = limits.limit(Destinations.kafkaTopic(uri));
        return limit.isEmpty() || fits(message, limit.get());
    }

    private boolean fits(Message message, int limit) {
        if (roughUpperBound(message) <= limit) {
            return true;
        }
        byte[] key = key(message);
        byte[] value = message.getBody(byte[].class);
        Header[] headers = headers(message);
        if (AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key,
                value, headers) <= limit) {
            return true;
        }
        return exactSize(message) <= limit;
    }

    /**
     * More than the record can take in its own batch, computed without encoding anything (every event of a claim is
     * checked): 3 bytes per character of the strings (UTF-8's most for a Java char), 5 of length per field, and the
     * batch's and record's own overhead.
     */
    private static long roughUpperBound(Message message) {
        Object body = message.getBody();
        long size = RECORD_OVERHEAD + (body instanceof byte[] bytes ? bytes.length : Integer.MAX_VALUE);
        for (Map.Entry<String, Object> header : message.getHeaders().entrySet()) {
            size += 10 + 3L * header.getKey().length()
                    + (header.getValue() instanceof String value ? 3L * value.length() : 0);
        }
        return size;
    }

    private int exactSize(Message message) {
        return MemoryRecords.withRecords(Compression.of(compression).build(), new SimpleRecord(
                System.currentTimeMillis(), key(message), message.getBody(byte[].class), headers(message)))
                .sizeInBytes();
    }

    private static byte[] key(Message message) {
        Object key = message.getHeader(KafkaConstants.KEY);
        return key == null ? null : key.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The headers camel-kafka sends: the string ones, not its own kafka.* nor Camel's. */
    private static Header[] headers(Message message) {
        List<Header> headers = new ArrayList<>();
        for (Map.Entry<String, Object> header : message.getHeaders().entrySet()) {
            String name = header.getKey();
            if (header.getValue() instanceof String value && !name.startsWith("kafka.") && !name.startsWith("Camel")) {
                headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8)));
            }
        }
        return headers.toArray(new Header[0]);
    }
}
