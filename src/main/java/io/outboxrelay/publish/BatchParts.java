package io.outboxrelay.publish;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.EventBatch;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;
import org.apache.camel.Message;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.DefaultMessage;

/**
 * Plans a claimed batch's way out ({@link PublishPlan}): each event becomes its message (CloudEvents headers, key,
 * payload) and is grouped by destination, so that the claim route's Split EIP sends every Kafka destination's events
 * as one exchange (camel-kafka sends a List body as one record per element, pipelined, each with its own headers,
 * key and acknowledgement: a message per event is enough, lighter than an exchange) and the destinations in
 * parallel. Per-key order holds within a part: the idempotent producer keeps a partition's records in send order.
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

    public BatchParts(CamelContext context, CloudEventsMapper mapper, Destinations destinations,
            RecordSizeCheck sizeCheck) {
        this.context = context;
        this.mapper = mapper;
        this.destinations = destinations;
        this.sizeCheck = sizeCheck;
    }

    public PublishPlan plan(@ExchangeProperty(ExchangeNames.BATCH) EventBatch batch) {
        Map<String, List<Message>> byDestination = new LinkedHashMap<>();
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
            byDestination.computeIfAbsent(uri, d -> new ArrayList<>()).add(message);
            partEvents.add(message);
            partEventIds.add(event.id());
        }
        List<Message> parts = new ArrayList<>(byDestination.size());
        byDestination.values().forEach(events -> {
            Message part = new DefaultMessage(context);
            // the part's headers are its first event's, so outbox.endpoint resolves to the part's destination
            part.setHeaders(new LinkedHashMap<>(events.get(0).getHeaders()));
            part.setBody(events);
            parts.add(part);
        });
        return new PublishPlan(parts, partEvents, partEventIds);
    }

    /** The claim's step after its parts were sent: the events they got acknowledged are published. */
    public void acknowledgeParts(@ExchangeProperty(ExchangeNames.PLAN) PublishPlan plan,
            @ExchangeProperty(ExchangeNames.BATCH) EventBatch batch) {
        plan.acknowledge(batch);
    }

    /** The publish-event route's last step: the broker acknowledged the event sent alone. */
    public void acknowledge(@ExchangeProperty(ExchangeNames.BATCH) EventBatch batch, @Header("ce_id") String id) {
        batch.acknowledge(id);
    }
}
