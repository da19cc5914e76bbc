package io.outboxrelay.publish;

import java.util.List;

import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.kafka.clients.producer.RecordMetadata;

/** What camel-kafka (record-metadata=true) tells about a record it sent, on the record's message. */
public final class KafkaAcknowledgement {

    private KafkaAcknowledgement() {
    }

    /**
     * @return where the broker appended the record, or null: not acknowledged (a failed record gets metadata too, but
     *         without an offset), or not sent by camel-kafka
     */
    public static RecordMetadata of(Message message) {
        if (message.getHeader(KafkaConstants.KAFKA_RECORD_META) instanceof List<?> metadata && !metadata.isEmpty()
                && metadata.get(0) instanceof RecordMetadata appended && appended.hasOffset()) {
            return appended;
        }
        return null;
    }
}
