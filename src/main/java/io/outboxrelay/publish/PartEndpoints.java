package io.outboxrelay.publish;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.CamelContext;
import org.apache.camel.component.kafka.KafkaEndpoint;

/**
 * The endpoint each Kafka destination's part is sent through: the first destination seen with the same endpoint
 * options stands for all of them, so one producer sends every topic's records of a claim (each record names its own
 * topic: camel-kafka's override-topic header). Camel would give each topic an endpoint, and so a producer, a network
 * thread and a produce request per claim of its own: with the default endpoint's three topics, one producer instead
 * of three took the relay's CPU per event at a steady 2,000 events/s on MariaDB from 188–205 µs to 146–174 µs, and the
 * broker's from 0.15–0.16 to 0.10–0.13 cores beside 8 writers (docs/BENCHMARKS.md).
 * <p>
 * A topic that accepts smaller record batches than its producer's batch size keeps an endpoint of its own: its
 * producer's batches are sized to the topic (TopicSizedBatches), which a shared producer's are not.
 */
public class PartEndpoints {

    private final CamelContext context;
    private final TopicLimits limits;
    /** Each destination's part endpoint, found once. */
    private final Map<String, String> byDestination = new ConcurrentHashMap<>();
    /** The shared endpoint per set of endpoint options. */
    private final Map<String, String> byOptions = new ConcurrentHashMap<>();

    public PartEndpoints(CamelContext context, TopicLimits limits) {
        this.context = context;
        this.limits = limits;
    }

    /**
     * @param destination a kafka: URI, outbox.endpoint evaluated on an event
     * @throws org.apache.kafka.common.errors.RetriableException the cluster did not tell the topic's limit (the
     *         destination is asked again for its next event)
     */
    public String of(String destination) {
        String known = byDestination.get(destination);
        return known != null ? known : byDestination.computeIfAbsent(destination, this::find);
    }

    private String find(String destination) {
        Optional<Integer> limit = limits.limit(Destinations.kafkaTopic(destination));
        String options = Destinations.kafkaOptions(destination);
        String shared = byOptions.get(options);
        // the batch size of the producer it would share (an endpoint made only when it is to be used)
        if (limit.isPresent() && limit.get() < batchSize(shared != null ? shared : destination)) {
            return destination;
        }
        return byOptions.computeIfAbsent(options, o -> destination);
    }

    /** The producer batch size of a Kafka endpoint; 0 for a URI Camel refuses (its part fails there). */
    private int batchSize(String uri) {
        try {
            return context.getEndpoint(uri, KafkaEndpoint.class).getConfiguration().getProducerBatchSize();
        } catch (RuntimeException e) {
            return 0;
        }
    }
}
