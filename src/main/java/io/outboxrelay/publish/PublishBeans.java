package io.outboxrelay.publish;

import java.time.Clock;

import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.spi.Registry;

/**
 * The publish and claim routes' publishing beans, made one way for the jar, the Kamelet and the route tests: the
 * event mapper, the parts ({@code batchParts}: one producer for every Kafka topic, PartEndpoints), the size check and
 * the broker outage; and the producer of a topic that accepts smaller batches sized to it. What reaches outside is
 * given: the mapper, Kafka's admin client, the broker probe, the clock (a route test gives its own).
 */
public final class PublishBeans {

    /** The probe route of an outage (routes/health.camel.yaml): a message starts it, its loop ends with the outage. */
    static final String PROBE_ROUTE = "seda:outbox-broker-probe";

    private PublishBeans() {
    }

    /** @param endpoint outbox.endpoint */
    public static void bind(CamelContext context, String endpoint, CloudEventsMapper mapper, KafkaAdmin kafkaAdmin,
            BrokerProbe probe, Clock clock) {
        Registry registry = context.getRegistry();
        TopicLimits topicLimits = new TopicLimits(kafkaAdmin);
        // no producer batches more than its topics accept: a rejected event fails alone
        context.getCamelContextExtension().registerEndpointCallback(new TopicSizedBatches(topicLimits));
        Destinations destinations = new Destinations(context, endpoint);
        RecordSizeCheck sizeCheck = new RecordSizeCheck(destinations, topicLimits, context.getPropertiesComponent()
                .resolveProperty("camel.component.kafka.compression-codec").orElse(null));
        registry.bind("cloudEventsMapper", mapper);
        registry.bind("recordSizeCheck", sizeCheck);
        registry.bind("batchParts", new BatchParts(context, mapper, destinations, sizeCheck,
                new PartEndpoints(context, topicLimits)));
        ProducerTemplate probing = context.createProducerTemplate();
        BrokerOutage outage = new BrokerOutage(probe, clock, () -> probing.sendBody(PROBE_ROUTE, null));
        registry.bind("brokerOutage", outage);
        registry.bind("probeBrokerAfterFailure", outage.probeAfterFailure());
    }
}
