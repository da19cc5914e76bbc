package io.outboxrelay.publish;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.KafkaException;

/**
 * The relay's questions to Kafka, answered by the test: each topic's max.message.bytes, or the exception the cluster
 * would raise. Never connects anywhere; an unexpected question fails the test.
 */
final class FakeKafkaAdmin extends KafkaAdmin {

    private final Map<String, Object> answers = new HashMap<>();
    final List<String> asked = new ArrayList<>();

    FakeKafkaAdmin() {
        super(null);
    }

    FakeKafkaAdmin limit(String topic, int maxMessageBytes) {
        answers.put(topic, maxMessageBytes);
        return this;
    }

    FakeKafkaAdmin fails(String topic, KafkaException failure) {
        answers.put(topic, failure);
        return this;
    }

    int times(String topic) {
        return (int) asked.stream().filter(topic::equals).count();
    }

    @Override
    public synchronized int maxMessageBytes(String topic) {
        asked.add(topic);
        Object answer = answers.get(topic);
        if (answer instanceof KafkaException e) {
            throw e;
        }
        if (answer == null) {
            throw new AssertionError("unexpected question about topic " + topic);
        }
        return (Integer) answer;
    }

    @Override
    public String problem() {
        throw new AssertionError("no broker probe expected");
    }
}
