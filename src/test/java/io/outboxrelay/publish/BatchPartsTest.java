package io.outboxrelay.publish;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a claimed batch is planned: Kafka events grouped into a part per endpoint (one for every topic), in claim order;
 * what goes one by one instead (other transports, unpublishable rows, records too large for their topic, and their
 * keys' later events).
 */
class BatchPartsTest {

    private static final String ENDPOINT = "kafka:outbox.event.${header.ce_aggregatetype}";

    private final DefaultCamelContext context = new DefaultCamelContext();
    private CloudEventsMapper mapper = new CloudEventsMapper("/test", true);
    private final FakeKafkaAdmin admin = new FakeKafkaAdmin()
            .limit("outbox.event.order", 1_000_000).limit("outbox.event.customer", 1_000_000);

    @Test
    void kafkaEventsOfEveryTopicGoAsOnePartInClaimOrderEachNamingItsTopic() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), customer("c1", "X"), order("o2", "B"),
                order("o3", "A"), customer("c2", "X")));

        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(1, plan.parts().size(), "one endpoint, and so one producer, for every topic");
        Message part = plan.parts().get(0);
        assertEquals(List.of("o1", "c1", "o2", "o3", "c2"), ids(part));
        assertEquals("kafka:outbox.event.order", part.getHeader(ExchangeNames.PART_ENDPOINT),
                "the endpoint of the first destination seen");
        List<Message> events = eventMessages(part);
        assertEquals(List.of("outbox.event.order", "outbox.event.customer", "outbox.event.order",
                "outbox.event.order", "outbox.event.customer"),
                events.stream().map(m -> m.getHeader(KafkaConstants.OVERRIDE_TOPIC, String.class)).toList());
        assertEquals("A", events.get(0).getHeader(KafkaConstants.KEY), "each event keeps its own key and headers");
        assertEquals("{\"n\":\"o1\"}", events.get(0).getBody(String.class));
    }

    @Test
    void laterClaimsUseTheSameEndpointWhicheverTopicComesFirst() {
        BatchParts parts = parts(ENDPOINT);
        parts.plan(OutboxEvent.Batch.of(List.of(order("o1", "A"))));

        BatchParts.Plan plan = parts.plan(OutboxEvent.Batch.of(List.of(customer("c1", "X"), order("o2", "A"))));

        assertEquals("kafka:outbox.event.order", plan.parts().get(0).getHeader(ExchangeNames.PART_ENDPOINT));
    }

    @Test
    void aTopicAcceptingSmallerBatchesThanTheProducersKeepsAnEndpointOfItsOwn() {
        // the producers batch up to camel-kafka's default producer batch size, 16384 bytes here
        admin.limit("outbox.event.customer", 10_000);
        var batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), customer("c1", "X"), order("o2", "B")));

        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(2, plan.parts().size());
        assertEquals(List.of("o1", "o2"), ids(plan.parts().get(0)));
        assertEquals(List.of("c1"), ids(plan.parts().get(1)));
        assertEquals("kafka:outbox.event.customer", plan.parts().get(1).getHeader(ExchangeNames.PART_ENDPOINT),
                "its producer's batches are sized to the topic (TopicSizedBatches)");
    }

    @Test
    void destinationsWithOtherEndpointOptionsGoThroughAnotherEndpoint() {
        var batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), customer("c1", "X"), order("o2", "B")));

        BatchParts.Plan plan = parts("kafka:outbox.event.${header.ce_aggregatetype}"
                + "?lingerMs=${header.ce_aggregatetype.length()}").plan(batch);

        assertEquals(2, plan.parts().size());
        assertEquals(List.of("o1", "o2"), ids(plan.parts().get(0)));
        assertEquals("kafka:outbox.event.customer?lingerMs=8",
                plan.parts().get(1).getHeader(ExchangeNames.PART_ENDPOINT));
    }

    @Test
    void eventsAcknowledgedInTheirPartAreNotSentAgain() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), order("o2", "B"), order("o3", "C")));

        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);
        List<Message> sent = eventMessages(plan.parts().get(0));
        // camel-kafka's answer per record: o1 and o3 appended, o2 not
        acknowledge(sent.get(0), 10);
        acknowledge(sent.get(2), 11);

        assertEquals(List.of("o2"), oneByOne(plan, batch), "what the broker did not acknowledge goes one by one");
        assertTrue(batch.isPublished("o1") && batch.isPublished("o3"));
    }

    @Test
    void otherTransportsSendEveryEventOneByOneInClaimOrder() {
        var batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), customer("c1", "X"), order("o2", "A")));


        BatchParts.Plan plan = parts("jms:queue:${header.ce_aggregatetype}").plan(batch);

        assertEquals(List.of(), plan.parts());
        assertEquals(List.of("o1", "c1", "o2"), oneByOne(plan, batch));
    }

    @Test
    void anUnpublishableEventAndItsKeysLaterEventsGoOneByOne() {
        OutboxEvent broken = new OutboxEvent("o2", 2, 0, "order", "A", "Placed", "{}", "[\"not an object\"]",
                Instant.EPOCH, 0);
        var batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), order("b1", "B"), broken, order("o3", "A"),

                order("b2", "B")));

        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(List.of("o1", "b1", "b2"), ids(plan.parts().get(0)),
                "the key's events before it go in the part, other keys carry on");
        assertEquals(List.of("o1", "b1", "o2", "o3", "b2"), oneByOne(plan, batch),
                "nothing acknowledged yet: all in claim order, o2 then o3 alone");
    }

    @Test
    void anEventItsSchemaRejectsAndItsKeysLaterEventsGoOneByOne(@TempDir Path dir) throws IOException {
        mapper = new CloudEventsMapper("/test", true, CloudEventsMapperTest.schemas(dir));
        OutboxEvent valid = new OutboxEvent("o1", 1, 0, "order", "A", "OrderPlaced", "{\"id\": 1, \"total\": 2}", null,
                Instant.EPOCH, 0);
        OutboxEvent invalid = new OutboxEvent("o2", 2, 0, "order", "A", "OrderPlaced", "{\"id\": \"two\"}", null,
                Instant.EPOCH, 0);
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(valid, order("b1", "B"), invalid, order("o3", "A")));


        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(List.of("o1", "b1"), ids(plan.parts().get(0)), "valid events and other keys go in the part");
        assertEquals("https://example.com/schemas/order/OrderPlaced.json",
                eventMessages(plan.parts().get(0)).get(0).getHeader("ce_dataschema"));
        assertEquals(List.of("o1", "b1", "o2", "o3"), oneByOne(plan, batch),
                "the invalid one goes alone (and fails there), its key's later events after it");
    }

    @Test
    void aRecordTooLargeForItsTopicAndItsKeysLaterEventsGoOneByOne() {
        admin.limit("outbox.event.order", 600);
        String payload = "{\"x\":\"" + incompressible(700) + "\"}";
        OutboxEvent large = new OutboxEvent("o2", 2, 0, "order", "A", "Placed", payload, null, Instant.EPOCH, 0);
        var batch = OutboxEvent.Batch.of(List.of(order("o1", "A"), large, order("o3", "A"), order("b1", "B")));


        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(List.of("o1", "b1"), ids(plan.parts().get(0)));
        List<Message> sent = eventMessages(plan.parts().get(0));
        acknowledge(sent.get(0), 1);
        acknowledge(sent.get(1), 2);
        assertEquals(List.of("o2", "o3"), oneByOne(plan, batch), "the large one is refused alone, its key waits on it");
    }

    @Test
    void anEmptyBatchHasNothingToSend() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of());


        BatchParts.Plan plan = parts(ENDPOINT).plan(batch);

        assertEquals(List.of(), plan.parts());
        assertEquals(List.of(), oneByOne(plan, batch));
    }

    private BatchParts parts(String endpoint) {
        Destinations destinations = new Destinations(context, endpoint);
        TopicLimits limits = new TopicLimits(admin);
        return new BatchParts(context, mapper, destinations, new RecordSizeCheck(destinations, limits, "lz4"),
                new PartEndpoints(context, limits));
    }

    @SuppressWarnings("unchecked")
    private static List<Message> eventMessages(Message part) {
        return (List<Message>) part.getBody(List.class);
    }

    private static List<String> ids(Message part) {
        List<String> ids = new ArrayList<>();
        eventMessages(part).forEach(m -> ids.add(m.getHeader("ce_id", String.class)));
        return ids;
    }

    private static void acknowledge(Message event, long offset) {
        event.setHeader(KafkaConstants.KAFKA_RECORD_META,
                List.of(new RecordMetadata(new TopicPartition("t", 0), offset, 0, 0, 1, 2)));
    }

    /** Text lz4 cannot shrink: the size check compresses as the producer does. */
    private static String incompressible(int length) {
        java.util.Random random = new java.util.Random(length);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + random.nextInt(26)));
        }
        return text.toString();
    }

    private static OutboxEvent order(String id, String aggregateId) {
        return new OutboxEvent(id, 1, 0, "order", aggregateId, "Placed", "{\"n\":\"" + id + "\"}", null,
                Instant.EPOCH, 0);
    }

    private static OutboxEvent customer(String id, String aggregateId) {
        return new OutboxEvent(id, 1, 0, "customer", aggregateId, "Registered", "{\"n\":\"" + id + "\"}", null,
                Instant.EPOCH, 0);
    }

    /** What the claim's routes send one by one after the parts: the events the parts did not get acknowledged. */
    private static List<String> oneByOne(BatchParts.Plan plan, OutboxEvent.Batch batch) {
        plan.acknowledge(batch);
        return batch.unpublishedIds();
    }
}
