package io.outboxrelay.publish;

import java.util.ArrayList;
import java.util.List;

import io.outboxrelay.event.EventBatch;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;

/**
 * How one claimed batch goes out: parts (one per Kafka destination, each a single exchange whose body is the list of
 * its events' exchanges, sent in parallel) and events sent one by one (a transport that sends one message per
 * exchange, a row that cannot become a message, a record too large for its topic, and the later events of those
 * keys). Held in an exchange property of the claim, beside the batch.
 */
public final class PublishPlan {

    /** The exchange property that carries the plan through the claim route. */
    public static final String PROPERTY = "outboxPlan";

    private final List<Message> parts;
    private final List<Exchange> partEvents;

    PublishPlan(List<Message> parts, List<Exchange> partEvents) {
        this.parts = parts;
        this.partEvents = partEvents;
    }

    /** The parts to send, each as one exchange: body a List of per-event exchanges, headers those of its first. */
    public List<Message> parts() {
        return parts;
    }

    /**
     * After the parts were sent: the events they got acknowledged are the batch's published ones; what is left goes
     * one by one, in claim order: the events planned so, and those of a part the broker did not acknowledge (sent
     * alone they show which of them is at fault, and no other event gets an attempt because of it).
     *
     * @return the ids to send one by one
     */
    public List<String> collect(EventBatch batch) {
        for (Exchange event : partEvents) {
            if (event.getException() == null && event.getMessage().getHeader(KafkaConstants.KAFKA_RECORD_META) != null) {
                batch.published(event.getMessage().getHeader("ce_id", String.class));
            }
        }
        List<String> ids = new ArrayList<>();
        for (OutboxEvent event : batch.events()) {
            if (!batch.isPublished(event.id())) {
                ids.add(event.id());
            }
        }
        return ids;
    }
}
