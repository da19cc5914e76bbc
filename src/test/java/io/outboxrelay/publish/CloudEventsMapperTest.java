package io.outboxrelay.publish;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An outbox row becomes the message the contract promises: CloudEvents binary mode, the row's headers, the key. */
class CloudEventsMapperTest {

    private static final Instant CREATED = Instant.parse("2024-05-06T07:08:09.123456Z");

    private final DefaultCamelContext context = new DefaultCamelContext();
    private final CloudEventsMapper kafka = new CloudEventsMapper("/shop/orders", true);

    @Test
    void theEventBecomesCloudEventsHeadersAndPayloadBytes() {
        Message message = write(kafka, event("{\"total\":\"12.50 €\"}", null));

        assertEquals("e-1", message.getHeader("ce_id"));
        assertEquals("OrderPlaced", message.getHeader("ce_type"));
        assertEquals("/shop/orders", message.getHeader("ce_source"));
        assertEquals("1.0", message.getHeader("ce_specversion"));
        assertEquals("2024-05-06T07:08:09.123456Z", message.getHeader("ce_time"));
        assertEquals("order-42", message.getHeader("ce_subject"));
        assertEquals("order", message.getHeader("ce_aggregatetype"));
        assertEquals("application/json", message.getHeader("content-type"));
        assertArrayEquals("{\"total\":\"12.50 €\"}".getBytes(StandardCharsets.UTF_8), message.getBody(byte[].class));
        assertTrue(message.getBody() instanceof byte[], "sent as bytes, as the value serializer expects");
    }

    @Test
    void forKafkaTheRecordKeyIsTheAggregateId() {
        assertEquals("order-42", write(kafka, event("{}", null)).getHeader(KafkaConstants.KEY));
        assertNull(write(new CloudEventsMapper("/s", false), event("{}", null)).getHeader(KafkaConstants.KEY),
                "other transports get no Kafka key");
    }

    @Test
    void theRowsOwnHeadersPassThroughAsStrings() {
        Message message = write(kafka, event("{}", "{\"traceparent\":\"00-abc-01\",\"priority\":5,\"urgent\":true}"));

        assertEquals("00-abc-01", message.getHeader("traceparent"));
        assertEquals("5", message.getHeader("priority"), "numbers as text: camel-kafka would send them as binary");
        assertEquals("true", message.getHeader("urgent"));
    }

    @Test
    void theRowsHeadersCannotOverrideTheCloudEventsOnes() {
        Message message = write(kafka, event("{}", "{\"ce_id\":\"forged\",\"ce_source\":\"/elsewhere\","
                + "\"kafka.KEY\":\"other-key\"}"));

        assertEquals("e-1", message.getHeader("ce_id"));
        assertEquals("/shop/orders", message.getHeader("ce_source"));
        assertEquals("order-42", message.getHeader(KafkaConstants.KEY));
    }

    @ParameterizedTest
    @ValueSource(strings = {"not json", "[\"a\"]", "\"text\"", "{\"nested\":{\"a\":\"b\"}}", "{\"list\":[1]}",
            "{\"gone\":null}"})
    void headersThatAreNotAnObjectOfStringsMakeTheEventUnpublishable(String headers) {
        UnpublishableEventException e = assertThrows(UnpublishableEventException.class,
                () -> write(kafka, event("{}", headers)));

        assertTrue(e.getMessage().startsWith("event e-1: "), e.getMessage());
    }

    @Test
    void thePublishStepMapsTheEventWhoseIdIsTheBody() {
        OutboxEvent other = new OutboxEvent("e-2", 2, 0, "order", "order-7", "OrderPaid", "{\"paid\":true}", null,
                CREATED, 0);
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(event("{}", null), other));
        Exchange exchange = new DefaultExchange(context);

        kafka.toMessage("e-2", batch, exchange);

        assertEquals("e-2", exchange.getMessage().getHeader("ce_id"));
        assertEquals("OrderPaid", exchange.getMessage().getHeader("ce_type"));
        assertEquals("{\"paid\":true}", exchange.getMessage().getBody(String.class));
    }

    @Test
    void camelsOwnHeadersStaySoARedeliveredStepKeepsItsCount() {
        Message message = new DefaultMessage(context);
        message.setHeader(Exchange.REDELIVERY_COUNTER, 2);
        message.setHeader("ce_previous", "left over from the last event");

        kafka.write(event("{}", null), message);

        assertEquals(2, message.getHeader(Exchange.REDELIVERY_COUNTER));
        assertFalse(message.getHeaders().containsKey("ce_previous"), "the other headers are the event's alone");
    }

    @Test
    void anEventWithASchemaIsCheckedAndNamesItsIdInDataschema(@TempDir Path dir) throws IOException {
        CloudEventsMapper mapper = new CloudEventsMapper("/shop/orders", true, schemas(dir));

        Message valid = write(mapper, event("{\"id\": 7, \"total\": 12.5}", null));

        assertEquals("https://example.com/schemas/order/OrderPlaced.json", valid.getHeader("ce_dataschema"));
        assertArrayEquals("{\"id\": 7, \"total\": 12.5}".getBytes(StandardCharsets.UTF_8), valid.getBody(byte[].class));
    }

    @Test
    void aPayloadItsSchemaRejectsIsUnpublishableNamingTheFileAndPointers(@TempDir Path dir) throws IOException {
        CloudEventsMapper mapper = new CloudEventsMapper("/shop/orders", true, schemas(dir));

        SchemaViolationException e = assertThrows(SchemaViolationException.class,
                () -> write(mapper, event("{\"total\": \"much\"}", null)));

        assertTrue(e instanceof UnpublishableEventException, "failed at once, like any row that cannot be sent");
        String file = dir.resolve("order/OrderPlaced.schema.json").toString();
        assertTrue(e.getMessage().startsWith("event e-1: payload rejected by schema " + file + ": "), e.getMessage());
        assertTrue(e.getMessage().contains("/total: string found, number expected"), e.getMessage());
        assertTrue(e.getMessage().contains("(root): required property 'id' not found"), e.getMessage());
    }

    @Test
    void eventsWithoutASchemaGoOutAsBefore(@TempDir Path dir) throws IOException {
        CloudEventsMapper mapper = new CloudEventsMapper("/shop/orders", true, schemas(dir));
        OutboxEvent unchecked = new OutboxEvent("e-2", 2, 0, "order", "order-42", "OrderShipped", "[\"anything\"]",
                null, CREATED, 0);

        Message message = write(mapper, unchecked);

        assertArrayEquals("[\"anything\"]".getBytes(StandardCharsets.UTF_8), message.getBody(byte[].class));
        assertFalse(message.getHeaders().containsKey("ce_dataschema"));
    }

    /** order/OrderPlaced has a schema (with an $id); other types have none. */
    static EventSchemas schemas(Path dir) throws IOException {
        Files.createDirectories(dir.resolve("order"));
        Files.writeString(dir.resolve("order/OrderPlaced.schema.json"), """
                {
                  "$id": "https://example.com/schemas/order/OrderPlaced.json",
                  "type": "object",
                  "required": ["id", "total"],
                  "properties": {"id": {"type": "integer"}, "total": {"type": "number"}}
                }""");
        return EventSchemas.load(dir.toString());
    }

    private Message write(CloudEventsMapper mapper, OutboxEvent event) {
        Message message = new DefaultMessage(context);
        mapper.write(event, message);
        return message;
    }

    private static OutboxEvent event(String payload, String headers) {
        return new OutboxEvent("e-1", 1, 3, "order", "order-42", "OrderPlaced", payload, headers, CREATED, 0);
    }
}
