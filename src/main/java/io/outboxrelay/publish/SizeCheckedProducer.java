package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.AbstractRecords;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * A Kafka producer that refuses, before sending it, a record its topic would reject as too large: the send fails at
 * once on the caller's thread (camel-kafka reports it on the exchange synchronously), so the relay knows the event
 * failed before it sends the next event of its key, and that event waits instead of overtaking it. A record the
 * broker rejects after it was sent could not be held back like that: the events of its key sent behind it (the relay
 * does not wait for each acknowledgement) would be delivered first. The size is the record's batch on its own, as
 * the broker measures it (compressed when the producer compresses); records well below the limit are not compressed
 * twice: only one whose uncompressed size exceeds the limit is measured exactly.
 */
public final class SizeCheckedProducer implements Producer<Object, Object> {

    private final Producer<Object, Object> delegate;
    private final String topic;
    private final IntSupplier readLimit;
    private final CompressionType compression;
    private volatile int maxMessageBytes;

    /** @param readLimit reads the topic's max.message.bytes again: before a record is refused, it may have been raised */
    SizeCheckedProducer(Producer<Object, Object> delegate, String topic, int maxMessageBytes, IntSupplier readLimit,
            String compressionType) {
        this.delegate = delegate;
        this.topic = topic;
        this.maxMessageBytes = maxMessageBytes;
        this.readLimit = readLimit;
        this.compression = compressionType == null ? CompressionType.NONE : CompressionType.forName(compressionType);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<Object, Object> record, Callback callback) {
        check(record);
        return delegate.send(record, callback);
    }

    @Override
    public Future<RecordMetadata> send(ProducerRecord<Object, Object> record) {
        check(record);
        return delegate.send(record);
    }

    private void check(ProducerRecord<Object, Object> record) {
        byte[] key = bytes(record.key());
        byte[] value = bytes(record.value());
        if (value == null || record.key() != null && key == null) {
            // serialised by something else: the broker decides
            return;
        }
        Header[] headers = record.headers().toArray();
        if (AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key,
                value, headers) <= maxMessageBytes) {
            return;
        }
        int size = MemoryRecords.withRecords(Compression.of(compression).build(),
                new SimpleRecord(System.currentTimeMillis(), key, value, headers)).sizeInBytes();
        if (size > maxMessageBytes) {
            // rare: worth asking the cluster whether the topic's limit was raised since
            maxMessageBytes = readLimit.getAsInt();
        }
        if (size > maxMessageBytes) {
            throw new RecordTooLargeException("The record is " + size + " bytes"
                    + (compression == CompressionType.NONE ? "" : " after " + compression.name + " compression")
                    + ", more than topic " + topic + " accepts (max.message.bytes " + maxMessageBytes
                    + "); it was not sent");
        }
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        return value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : null;
    }

    @Override
    public void initTransactions() {
        delegate.initTransactions();
    }

    @Override
    public void beginTransaction() {
        delegate.beginTransaction();
    }

    @Override
    @SuppressWarnings("deprecation")
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets, String consumerGroupId) {
        delegate.sendOffsetsToTransaction(offsets, consumerGroupId);
    }

    @Override
    public void sendOffsetsToTransaction(Map<TopicPartition, OffsetAndMetadata> offsets,
            ConsumerGroupMetadata groupMetadata) {
        delegate.sendOffsetsToTransaction(offsets, groupMetadata);
    }

    @Override
    public void commitTransaction() {
        delegate.commitTransaction();
    }

    @Override
    public void abortTransaction() {
        delegate.abortTransaction();
    }

    @Override
    public void flush() {
        delegate.flush();
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return delegate.partitionsFor(topic);
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return delegate.clientInstanceId(timeout);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        delegate.close(timeout);
    }
}
