package io.outboxrelay.publish;

import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** outbox.endpoint evaluated on an event's message, as the routes' toD evaluates it. */
class DestinationsTest {

    private final DefaultCamelContext context = new DefaultCamelContext();

    @Test
    void theEndpointMayUseTheCloudEventsHeaders() {
        Destinations destinations = new Destinations(context, "kafka:outbox.event.${header.ce_aggregatetype}");

        assertEquals("kafka:outbox.event.order", destinations.uri(exchange("order")));
        assertEquals("kafka:outbox.event.customer", destinations.uri(exchange("customer")));
    }

    @Test
    void aFixedEndpointIsTheSameForEveryEvent() {
        assertEquals("jms:queue:events", new Destinations(context, "jms:queue:events").uri(exchange("order")));
    }

    @Test
    void theTopicIsTheKafkaUriWithoutSchemeSlashesAndOptions() {
        assertEquals("orders", Destinations.kafkaTopic("kafka:orders"));
        assertEquals("orders", Destinations.kafkaTopic("kafka://orders"));
        assertEquals("orders.v1", Destinations.kafkaTopic("kafka:orders.v1?partitioner=x&acks=all"));
    }

    @Test
    void theOptionsAreWhatTheKafkaUriSaysBesidesItsTopic() {
        assertEquals("", Destinations.kafkaOptions("kafka:orders"));
        assertEquals("?partitioner=x&acks=all", Destinations.kafkaOptions("kafka://orders.v1?partitioner=x&acks=all"));
    }

    @Test
    void onlyKafkaUrisAreKafka() {
        assertTrue(Destinations.isKafka("kafka:orders"));
        assertFalse(Destinations.isKafka("jms:queue:kafka"));
        assertFalse(Destinations.isKafka("mock:kafka:orders"));
    }

    private Exchange exchange(String aggregateType) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("ce_aggregatetype", aggregateType);
        return exchange;
    }
}
