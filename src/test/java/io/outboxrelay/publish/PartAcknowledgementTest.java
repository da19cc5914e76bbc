package io.outboxrelay.publish;

import java.time.Instant;
import java.util.List;

import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultMessage;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What counts as acknowledged after a part was sent: only a record the broker appended (its metadata has an offset).
 * Kafka hands a failed record's callback metadata too, without an offset: such an event is sent again alone, never
 * marked PUBLISHED.
 */
class PartAcknowledgementTest {

    private final DefaultCamelContext context = new DefaultCamelContext();

    @Test
    void onlyRecordsWithAnOffsetArePublishedAndTheRestGoOneByOneInClaimOrder() {
        var batch = new OutboxEvent.Batch(List.of(event("a", 1), event("b", 2), event("c", 3), event("d", 4)));

        Message appended = message(new RecordMetadata(new TopicPartition("t", 0), 41, 0, 0, 1, 2));
        Message failed = message(new RecordMetadata(new TopicPartition("t", 0), -1, -1, -1, -1, -1));
        Message unanswered = new DefaultMessage(context);
        BatchParts.Plan plan = new BatchParts.Plan(List.of(), List.of(appended, failed, unanswered),
                List.of("a", "b", "c"));

        assertEquals(List.of("b", "c", "d"), oneByOne(plan, batch), "d was planned one by one");
        assertTrue(batch.isPublished("a"));
        assertFalse(batch.isPublished("b"), "a failed record is not acknowledged");
        assertEquals(List.of("a"), List.of(batch.publishedIds()));
    }

    private Message message(RecordMetadata metadata) {
        Message message = new DefaultMessage(context);
        message.setHeader(KafkaConstants.KAFKA_RECORD_META, List.of(metadata));
        return message;
    }

    private static OutboxEvent event(String id, long seq) {
        return new OutboxEvent(id, seq, 0, "order", "k", "E", "{}", null, Instant.EPOCH, 0);
    }

    /** What the claim's routes send one by one after the parts: the events the parts did not get acknowledged. */
    private static List<String> oneByOne(BatchParts.Plan plan, OutboxEvent.Batch batch) {
        plan.acknowledge(batch);
        return batch.unpublishedIds();
    }
}
