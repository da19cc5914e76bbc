package io.outboxrelay.publish;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.Endpoint;
import org.apache.camel.component.kafka.DefaultKafkaClientFactory;
import org.apache.camel.component.kafka.KafkaClientFactory;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.component.kafka.KafkaConfiguration;
import org.apache.camel.component.kafka.KafkaEndpoint;
import org.apache.camel.spi.EndpointStrategy;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one oversized event from failing its neighbours: the Kafka producer of each topic gets a batch size no larger
 * than the topic's max.message.bytes. Camel cannot do this itself: batch.size is one setting per producer, and when
 * a topic rejects a batch as too large the producer splits it only down to batch.size, so with a batch size above
 * the topic's limit it sends the same batch again and again (a WARN line each time) until the delivery timeout, and
 * then fails every record of it, healthy ones too. With the cap, the split separates the rejected record from the
 * others at once: it fails alone, with RecordTooLargeException, and the rest are acknowledged.
 * <p>
 * The topic's limit is read when its producer starts (the first event for the topic). While the cluster does not
 * answer the producer cannot start, and the send fails as one to an unreachable broker.
 */
public class TopicSizedBatches implements EndpointStrategy {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSizedBatches.class);

    private final TopicLimits limits;
    /** The batch size last logged per topic: a topic can have several producers (one per Camel producer cache). */
    private final Map<String, Integer> logged = new ConcurrentHashMap<>();

    public TopicSizedBatches(TopicLimits limits) {
        this.limits = limits;
    }

    @Override
    public Endpoint registerEndpoint(String uri, Endpoint endpoint) {
        if (endpoint instanceof KafkaEndpoint kafka && !kafka.getConfiguration().getTopic().contains("${")) {
            kafka.setKafkaClientFactory(new Factory(kafka, kafka.getKafkaClientFactory()));
        }
        return endpoint;
    }

    /** The batch size for a topic: the configured one, or the topic's limit when that is smaller. */
    int batchSize(String topic, int configured, int limit) {
        int batchSize = Math.min(limit, configured);
        Integer before = logged.put(topic, batchSize);
        if (batchSize < configured && (before == null || before != batchSize)) {
            LOG.info("Topic {} accepts record batches of up to {} bytes: its producer batches up to that size", topic,
                    limit);
        }
        return batchSize;
    }

    /** Creates the endpoint's producer with the topic's batch size. */
    private final class Factory implements KafkaClientFactory {

        private final KafkaEndpoint endpoint;
        private final KafkaClientFactory configured;

        Factory(KafkaEndpoint endpoint, KafkaClientFactory configured) {
            this.endpoint = endpoint;
            this.configured = configured;
        }

        @Override
        @SuppressWarnings("rawtypes")
        public Producer getProducer(Properties kafkaProps) {
            KafkaConfiguration configuration = endpoint.getConfiguration();
            String topic = configuration.getTopic();
            Object batchSize = kafkaProps.getOrDefault(ProducerConfig.BATCH_SIZE_CONFIG,
                    configuration.getProducerBatchSize());
            int configuredSize = Integer.parseInt(batchSize.toString());
            limits.limit(topic).ifPresent(limit -> kafkaProps.put(ProducerConfig.BATCH_SIZE_CONFIG,
                    Integer.toString(batchSize(topic, configuredSize, limit))));
            return delegate().getProducer(kafkaProps);
        }

        @Override
        public Consumer getConsumer(Properties kafkaProps) {
            return delegate().getConsumer(kafkaProps);
        }

        @Override
        public String getBrokers(KafkaConfiguration configuration) {
            return delegate().getBrokers(configuration);
        }

        /** The factory the endpoint would have used: its own, else its component's (set when the endpoint is built). */
        private KafkaClientFactory delegate() {
            if (configured != null) {
                return configured;
            }
            KafkaClientFactory component = ((KafkaComponent) endpoint.getComponent()).getKafkaClientFactory();
            return component != null ? component : new DefaultKafkaClientFactory();
        }
    }
}
