package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.claim.OutboxEvent;
import org.apache.camel.Exchange;
import org.apache.camel.InvalidPayloadException;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;

/**
 * Turns one claimed outbox event into the message the contract promises: the payload as UTF-8 bytes, the row's own
 * headers, then the CloudEvents 1.0 binary-mode headers (which the row's headers cannot override), and for Kafka the
 * record key. Header values are strings: camel-kafka would serialise numbers as binary.
 */
public class OutboxEventMapper {

    public static final String OUTBOX_ID = "outboxId";
    public static final String CREATED_AT = "outboxCreatedAt";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String source;
    private final boolean kafkaKey;

    public OutboxEventMapper(String source, boolean kafkaKey) {
        this.source = source;
        this.kafkaKey = kafkaKey;
    }

    public void toMessage(Exchange exchange) throws InvalidPayloadException {
        OutboxEvent event = exchange.getMessage().getMandatoryBody(OutboxEvent.class);
        String id = event.id();
        Instant createdAt = event.createdAt();
        exchange.setProperty(OUTBOX_ID, id);
        exchange.setProperty(CREATED_AT, createdAt);

        Map<String, Object> headers = rowHeaders(id, event.headers());
        String aggregateType = event.aggregateType();
        String aggregateId = event.aggregateId();
        headers.put("ce_id", id);
        headers.put("ce_type", event.eventType());
        headers.put("ce_source", source);
        headers.put("ce_subject", aggregateId);
        headers.put("ce_time", DateTimeFormatter.ISO_INSTANT.format(createdAt));
        headers.put("ce_specversion", "1.0");
        headers.put("ce_aggregatetype", aggregateType);
        headers.put("content-type", "application/json");
        if (kafkaKey) {
            headers.put(KafkaConstants.KEY, aggregateId);
        }

        Message message = exchange.getMessage();
        message.setHeaders(headers);
        message.setBody(event.payload().getBytes(StandardCharsets.UTF_8));
    }

    private static Map<String, Object> rowHeaders(String id, String json) {
        Map<String, Object> headers = new HashMap<>();
        if (json == null) {
            return headers;
        }
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UnpublishableEventException("event " + id + ": headers are not valid JSON");
        }
        if (!node.isObject()) {
            throw new UnpublishableEventException("event " + id + ": headers must be a JSON object, got " + node.getNodeType());
        }
        for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext();) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            if (!value.isValueNode() || value.isNull()) {
                throw new UnpublishableEventException(
                        "event " + id + ": header '" + field.getKey() + "' must be a string, got " + value.getNodeType());
            }
            headers.put(field.getKey(), value.asText());
        }
        return headers;
    }
}
