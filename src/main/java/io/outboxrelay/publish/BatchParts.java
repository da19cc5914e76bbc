package io.outboxrelay.publish;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Plans a claimed batch's way out (its {@link Plan}): each event becomes its message (CloudEvents headers, key,
 * payload, and its topic in camel-kafka's override-topic header) and is grouped by the endpoint its destination is
 * sent through ({@link PartEndpoints}: one for every topic, unless endpoint options or a topic's batch limit differ),
 * so that the claim route's Split EIP sends each endpoint's events as one exchange (camel-kafka sends a List body as
 * one record per element, pipelined, each with its own topic, headers, key and acknowledgement: a message per event
 * is enough, lighter than an exchange). Per-key order holds within a part: the idempotent producer keeps a
 * partition's records in send order.
 * <p>
 * Java because grouping by the evaluated endpoint and building the per-event messages camel-kafka's batch mode
 * needs are not expressible in a route; everything around it (split, send, mark, failures) is. Its two other steps
 * record what the broker acknowledged, in the parts and alone.
 */
public class BatchParts {

    private final CamelContext context;
    private final CloudEventsMapper mapper;
    private final Destinations destinations;
    private final RecordSizeCheck sizeCheck;
    private final PartEndpoints partEndpoints;

    public BatchParts(CamelContext context, CloudEventsMapper mapper, Destinations destinations,
            RecordSizeCheck sizeCheck, PartEndpoints partEndpoints) {
        this.context = context;
        this.mapper = mapper;
        this.destinations = destinations;
        this.sizeCheck = sizeCheck;
        this.partEndpoints = partEndpoints;
    }

    public Plan plan(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        Map<String, List<Message>> byEndpoint = new LinkedHashMap<>();
        List<Message> partEvents = new ArrayList<>(batch.size());
        List<String> partEventIds = new ArrayList<>(batch.size());
        // the destination is evaluated on an exchange, as toD evaluates it
        Exchange evaluation = new DefaultExchange(context);
        // a key with an event that must go alone: its later events of the batch go alone after it
        Set<String> keysAlone = new HashSet<>();
        for (OutboxEvent event : batch.events()) {
            if (!keysAlone.isEmpty() && keysAlone.contains(event.key())) {
                continue;
            }
            Message message = new DefaultMessage(context);
            String uri;
            try {
                mapper.write(event, message);
                evaluation.setIn(message);
                uri = destinations.uri(evaluation);
            } catch (UnpublishableEventException e) {
                // fails again on its own way, and is recorded there
                uri = null;
            }
            if (uri == null || !Destinations.isKafka(uri) || !sizeCheck.fits(uri, message)) {
                if (uri == null || Destinations.isKafka(uri)) {
                    keysAlone.add(event.key());
                }
                continue;
            }
            message.setHeader(KafkaConstants.OVERRIDE_TOPIC, Destinations.kafkaTopic(uri));
            byEndpoint.computeIfAbsent(partEndpoints.of(uri), endpoint -> new ArrayList<>()).add(message);
            partEvents.add(message);
            partEventIds.add(event.id());
        }
        List<Message> parts = new ArrayList<>(byEndpoint.size());
        byEndpoint.forEach((endpoint, events) -> {
            Message part = new DefaultMessage(context);
            part.setHeader(ExchangeNames.PART_ENDPOINT, endpoint);
            part.setBody(events);
            parts.add(part);
        });
        return new Plan(parts, partEvents, partEventIds);
    }

    /** The claim's step after its parts were sent: the events they got acknowledged are published. */
    public void acknowledgeParts(@ExchangeProperty(ExchangeNames.PLAN) Plan plan,
            @ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        plan.acknowledge(batch);
    }

    /** The publish-event route's last step: the broker acknowledged the event sent alone. */
    public void acknowledge(@ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch,
            @Header("ce_id") String id) {
        batch.acknowledge(id);
    }

    /**
     * What camel-kafka (record-metadata=true) tells about a record it sent, on the record's message: where the broker
     * appended it, or null: not acknowledged (a failed record gets metadata too, but without an offset), or not sent
     * by camel-kafka.
     */
    public static RecordMetadata appended(Message message) {
        if (message.getHeader(KafkaConstants.KAFKA_RECORD_META) instanceof List<?> metadata && !metadata.isEmpty()
                && metadata.get(0) instanceof RecordMetadata appended && appended.hasOffset()) {
            return appended;
        }
        return null;
    }

    /**
     * How one claimed batch goes out: parts (one per Kafka endpoint, each a single exchange whose body is the list
     * of its events' messages) and events sent one by one (a transport that sends one message per
     * exchange, a row that cannot become a message, a record too large for its topic, and the later events of those
     * keys). Held in an exchange property of the claim, beside the batch.
     */
    public static final class Plan {

        private final List<Message> parts;
        private final List<Message> partEvents;
        private final List<String> partEventIds;

        /** @param partEvents the parts' events' messages, and their ids at the same index */
        Plan(List<Message> parts, List<Message> partEvents, List<String> partEventIds) {
            this.parts = parts;
            this.partEvents = partEvents;
            this.partEventIds = partEventIds;
        }

        /** The parts to send, each as one exchange: body a List of per-event messages, a header naming the endpoint. */
        public List<Message> parts() {
            return parts;
        }

        /**
         * After the parts were sent: the events they got acknowledged are the batch's published ones. What is left
         * goes one by one ({@link OutboxEvent.Batch#unpublishedIds()}): the events planned so, and those of a part the
         * broker did not acknowledge (sent alone they show which of them is at fault, and no other event gets an
         * attempt because of it).
         */
        public void acknowledge(OutboxEvent.Batch batch) {
            for (int i = 0; i < partEvents.size(); i++) {
                if (appended(partEvents.get(i)) != null) {
                    batch.acknowledge(partEventIds.get(i));
                }
            }
        }
    }
}
