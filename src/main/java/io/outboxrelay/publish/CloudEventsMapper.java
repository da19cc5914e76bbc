package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.event.EventSchemas;
import io.outboxrelay.event.EventSchemas.EventSchema;
import io.outboxrelay.event.Violation;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;

/**
 * Turns one claimed outbox event into the message the contract promises: the payload as UTF-8 bytes, the row's own
 * headers, then the CloudEvents 1.0 binary-mode headers (which the row's headers cannot override), and for Kafka the
 * record key. Header values are strings: camel-kafka would serialise numbers as binary. An event whose type has a
 * schema (outbox.schemas-dir, {@link EventSchemas}) is checked against it here, the one step every event passes
 * (alone or in a part): an invalid payload is unpublishable, a valid one names its schema's $id in ce_dataschema.
 * (camel-json-validator would check a message against one schema, not pick it by event type, and is not served at
 * the project's Camel version.)
 */
public class CloudEventsMapper {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String source;
    private final boolean kafkaKey;
    private final EventSchemas schemas;

    public CloudEventsMapper(String source, boolean kafkaKey) {
        this(source, kafkaKey, EventSchemas.NONE);
    }

    public CloudEventsMapper(String source, boolean kafkaKey, EventSchemas schemas) {
        this.source = source;
        this.kafkaKey = kafkaKey;
        this.schemas = schemas;
    }

    /** The publish-event route's step: the event whose id is the body becomes the exchange's message. */
    public void toMessage(@Body String id, @ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch,
            Exchange exchange) {
        write(batch.event(id), exchange.getMessage());
    }

    /**
     * Writes the event's message.
     *
     * @throws UnpublishableEventException the row's headers are not an object of strings: it can never be sent
     * @throws SchemaViolationException its event type's schema rejects the payload
     */
    public void write(OutboxEvent event, Message message) {
        Map<String, Object> headers = message.getHeaders();
        // Camel's own headers stay: redelivery keeps its count in CamelRedeliveryCounter, and a step that cleared it
        // would be redelivered for ever
        headers.keySet().removeIf(name -> !name.startsWith("Camel"));
        rowHeaders(event, headers);
        String aggregateId = event.aggregateId();
        headers.put("ce_id", event.id());
        headers.put("ce_type", event.eventType());
        headers.put("ce_source", source);
        headers.put("ce_subject", aggregateId);
        headers.put("ce_time", DateTimeFormatter.ISO_INSTANT.format(event.createdAt()));
        headers.put("ce_specversion", "1.0");
        headers.put("ce_aggregatetype", event.aggregateType());
        headers.put("content-type", "application/json");
        if (kafkaKey) {
            headers.put(KafkaConstants.KEY, aggregateId);
        }
        EventSchema schema = schemas.find(event.aggregateType(), event.eventType());
        if (schema != null) {
            List<Violation> violations = schema.check(event.payload());
            if (!violations.isEmpty()) {
                throw new SchemaViolationException("event " + event.id() + ": " + schema.describe(violations));
            }
            if (schema.id() != null) {
                headers.put("ce_dataschema", schema.id());
            }
        }
        message.setBody(event.payload().getBytes(StandardCharsets.UTF_8));
    }

    private static void rowHeaders(OutboxEvent event, Map<String, Object> headers) {
        String json = event.headers();
        if (json == null) {
            return;
        }
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UnpublishableEventException("event " + event.id() + ": headers are not valid JSON");
        }
        if (!node.isObject()) {
            throw new UnpublishableEventException(
                    "event " + event.id() + ": headers must be a JSON object, got " + node.getNodeType());
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext();) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            if (!value.isValueNode() || value.isNull()) {
                throw new UnpublishableEventException("event " + event.id() + ": header '" + field.getKey()
                        + "' must be a string, got " + value.getNodeType());
            }
            headers.put(field.getKey(), value.asText());
        }
    }
}
