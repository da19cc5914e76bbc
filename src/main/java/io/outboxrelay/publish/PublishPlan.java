package io.outboxrelay.publish;

import java.util.List;

import io.outboxrelay.event.EventBatch;
import org.apache.camel.Message;

/**
 * How one claimed batch goes out: parts (one per Kafka destination, each a single exchange whose body is the list of
 * its events' messages, sent in parallel) and events sent one by one (a transport that sends one message per
 * exchange, a row that cannot become a message, a record too large for its topic, and the later events of those
 * keys). Held in an exchange property of the claim, beside the batch.
 */
public final class PublishPlan {

    private final List<Message> parts;
    private final List<Message> partEvents;
    private final List<String> partEventIds;

    /** @param partEvents the parts' events' messages, and their ids at the same index */
    PublishPlan(List<Message> parts, List<Message> partEvents, List<String> partEventIds) {
        this.parts = parts;
        this.partEvents = partEvents;
        this.partEventIds = partEventIds;
    }

    /** The parts to send, each as one exchange: body a List of per-event messages, headers those of its first. */
    public List<Message> parts() {
        return parts;
    }

    /**
     * After the parts were sent: the events they got acknowledged are the batch's published ones. What is left goes
     * one by one ({@link EventBatch#unpublishedIds()}): the events planned so, and those of a part the broker did not
     * acknowledge (sent alone they show which of them is at fault, and no other event gets an attempt because of it).
     */
    public void acknowledge(EventBatch batch) {
        for (int i = 0; i < partEvents.size(); i++) {
            if (KafkaAcknowledgement.of(partEvents.get(i)) != null) {
                batch.acknowledge(partEventIds.get(i));
            }
        }
    }
}
