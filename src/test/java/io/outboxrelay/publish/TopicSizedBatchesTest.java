package io.outboxrelay.publish;

import java.util.Properties;

import org.apache.camel.Endpoint;
import org.apache.camel.component.kafka.KafkaClientFactory;
import org.apache.camel.component.kafka.KafkaConfiguration;
import org.apache.camel.component.kafka.KafkaEndpoint;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Each topic's producer batches no more than the topic accepts. The Kafka endpoints are real; their client factory
 * is the test's, so no producer is made and no broker is needed.
 */
class TopicSizedBatchesTest {

    private final DefaultCamelContext context = new DefaultCamelContext();
    private final FakeKafkaAdmin admin = new FakeKafkaAdmin();
    private final TopicSizedBatches batches = new TopicSizedBatches(new TopicLimits(admin));

    @AfterEach
    void stop() {
        context.stop();
    }

    @Test
    void theBatchSizeIsTheConfiguredOneOrTheTopicsLimitWhenSmaller() {
        assertEquals(1_000, batches.batchSize("small", 65_536, 1_000));
        assertEquals(65_536, batches.batchSize("large", 65_536, 1_048_588));
    }

    @Test
    void aTopicsProducerIsMadeWithTheTopicsBatchSize() {
        admin.limit("orders", 10_000);
        RecordingFactory made = new RecordingFactory();

        KafkaEndpoint endpoint = register("kafka:orders", made);
        Properties producer = new Properties();
        producer.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        endpoint.getKafkaClientFactory().getProducer(producer);

        assertEquals("10000", made.producerProperties.get(ProducerConfig.BATCH_SIZE_CONFIG));
    }

    @Test
    void aTopicWhoseLimitIsUnknownKeepsTheConfiguredBatchSize() {
        admin.fails("orders", new org.apache.kafka.common.errors.TopicAuthorizationException("denied"));
        RecordingFactory made = new RecordingFactory();

        KafkaEndpoint endpoint = register("kafka:orders", made);
        Properties producer = new Properties();
        producer.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        endpoint.getKafkaClientFactory().getProducer(producer);

        assertEquals("65536", made.producerProperties.get(ProducerConfig.BATCH_SIZE_CONFIG));
    }

    @Test
    void anEndpointWhoseTopicIsAnExpressionIsLeftAlone() {
        RecordingFactory made = new RecordingFactory();

        KafkaEndpoint endpoint = register("kafka:orders.${header.ce_type}", made);

        assertSame(made, endpoint.getKafkaClientFactory());
        assertEquals(0, admin.asked.size());
    }

    @Test
    void otherEndpointsAreLeftAlone() {
        Endpoint mock = context.getEndpoint("mock:out");

        assertSame(mock, batches.registerEndpoint("mock:out", mock));
    }

    private KafkaEndpoint register(String uri, KafkaClientFactory factory) {
        KafkaEndpoint endpoint = context.getEndpoint(uri, KafkaEndpoint.class);
        endpoint.setKafkaClientFactory(factory);
        return (KafkaEndpoint) batches.registerEndpoint(uri, endpoint);
    }

    /** Records what a producer would have been made with. */
    private static final class RecordingFactory implements KafkaClientFactory {

        Properties producerProperties;

        @Override
        @SuppressWarnings("rawtypes")
        public Producer getProducer(Properties kafkaProps) {
            producerProperties = kafkaProps;
            return null;
        }

        @Override
        @SuppressWarnings("rawtypes")
        public Consumer getConsumer(Properties kafkaProps) {
            throw new AssertionError("the relay consumes nothing");
        }

        @Override
        public String getBrokers(KafkaConfiguration configuration) {
            return "unused:9092";
        }
    }
}
