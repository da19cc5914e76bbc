package io.outboxrelay.publish;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.support.RelayRoutesTestSupport;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claim's routes as routes on a Kafka endpoint: claim -> one part for every topic (outbox-send-batch, the part's
 * send advised into a mock that answers for each record as camel-kafka does) -> what a part did not get acknowledged,
 * alone (outbox-send-alone) -> mark. No broker: the sends are mocks; no database: the SQL steps are mocks.
 */
@Timeout(20)
class BatchPartsRouteTest extends RelayRoutesTestSupport {

    private static final String PART = "mock:part";
    private static final String ALONE = "mock:alone";

    @Override
    protected List<String> routeFiles() {
        return CLAIM_PATH_ROUTES;
    }

    @Override
    protected Properties properties() {
        Properties properties = super.properties();
        properties.setProperty("outbox.endpoint", "kafka:outbox.event.${header.ce_aggregatetype}");
        return properties;
    }

    @Override
    protected KafkaAdmin kafkaAdmin() {
        return new FakeKafkaAdmin().limit("outbox.event.order", 1_000_000).limit("outbox.event.customer", 1_000_000);
    }

    @Override
    protected void advise() throws Exception {
        adviseClaimRoutes();
        AdviceWith.adviceWith(context, "outbox-publish-part", route -> route.weaveById("send-part").replace().to(PART));
        AdviceWith.adviceWith(context, "outbox-publish-event",
                route -> route.weaveById("send-event").replace().to(ALONE));
    }

    @BeforeEach
    void ownsPartitionZero() {
        ownPartitionZero();
    }

    @Test
    void onePartForEveryTopicThenWhatItDidNotGetAcknowledgedAloneThenOneMark() throws Exception {
        MockEndpoint claim = getMockEndpoint(CLAIM);
        claim.whenExchangeReceived(1, exchange -> exchange.getMessage().setBody(List.of(event("o1", "order", "A"),
                event("c1", "customer", "X"), event("o2", "order", "B"), event("o3", "order", "C"))));
        claim.whenAnyExchangeReceived(exchange -> exchange.getMessage().setBody(List.of()));
        // camel-kafka's answer per record: appended (with an offset), except o2 (a failed record: no offset)
        getMockEndpoint(PART).whenAnyExchangeReceived(exchange -> {
            for (Object record : exchange.getMessage().getBody(List.class)) {
                Message message = (Message) record;
                boolean appended = !"o2".equals(message.getHeader("ce_id"));
                message.setHeader(KafkaConstants.KAFKA_RECORD_META, List.of(new RecordMetadata(
                        new TopicPartition("t", 0), appended ? 7 : -1, 0, 0, 1, 2)));
            }
        });
        getMockEndpoint(PART).expectedMessageCount(1);
        getMockEndpoint(ALONE).expectedMessageCount(1);
        getMockEndpoint(MARK).expectedMessageCount(1);

        NotifyBuilder done = new NotifyBuilder(context).fromRoute("outbox-claim")
                .filter(exchange -> exchange.getProperty(Exchange.SPLIT_INDEX) == null).whenDone(1).create();
        template.sendBody("direct:outbox-wake", null);
        assertTrue(done.matches(10, TimeUnit.SECONDS), "the claim did not finish");

        MockEndpoint.assertIsSatisfied(context);
        Exchange part = getMockEndpoint(PART).getReceivedExchanges().get(0);
        assertEquals(List.of("o1", "c1", "o2", "o3"), ids(part), "one part for both topics, in claim order");
        assertEquals(List.of("outbox.event.order", "outbox.event.customer", "outbox.event.order", "outbox.event.order"),
                part.getMessage().getBody(List.class).stream()
                        .map(m -> ((Message) m).getHeader(KafkaConstants.OVERRIDE_TOPIC)).toList(),
                "each record names its topic");
        assertEquals("o2", getMockEndpoint(ALONE).getReceivedExchanges().get(0).getMessage().getHeader("ce_id"),
                "the record the part did not get appended goes alone");
        Map<?, ?> marked = getMockEndpoint(MARK).getReceivedExchanges().get(0).getMessage().getBody(Map.class);
        assertEquals(Set.of("o1", "o2", "o3", "c1"), Set.of((String[]) marked.get("ids")));
        assertEquals(4.0, count("outbox.events.published"));
    }

    private static List<Object> ids(Exchange part) {
        return part.getMessage().getBody(List.class).stream().map(m -> ((Message) m).getHeader("ce_id")).toList();
    }

    private static OutboxEvent event(String id, String type, String key) {
        return new OutboxEvent(id, id.hashCode(), 0, type, key, "Created", "{\"id\":\"" + id + "\"}", null,
                Instant.EPOCH, 0);
    }
}
