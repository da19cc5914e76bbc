package io.outboxrelay.publish;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The largest record batch each topic accepts (its max.message.bytes), asked of the cluster once per topic and kept.
 * A limit the relay may not read (no DescribeConfigs permission) is unknown: logged once, and nothing is checked
 * against it.
 */
public class TopicLimits {

    private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);

    private final KafkaAdmin admin;
    private final Map<String, Optional<Integer>> limits = new ConcurrentHashMap<>();

    public TopicLimits(KafkaAdmin admin) {
        this.admin = admin;
    }

    /**
     * @return the topic's limit, or empty when the relay may not read it
     * @throws RetriableException the cluster did not answer
     */
    public Optional<Integer> limit(String topic) {
        Optional<Integer> known = limits.get(topic);
        return known != null ? known : refresh(topic);
    }

    /** Asks the cluster again (a limit may have been raised since). */
    public Optional<Integer> refresh(String topic) {
        Optional<Integer> limit;
        try {
            limit = Optional.of(admin.maxMessageBytes(topic));
        } catch (RetriableException e) {
            throw e;
        } catch (KafkaException e) {
            LOG.warn("Cannot read max.message.bytes of topic {} ({}): its producer keeps the configured batch size and "
                    + "records are not checked before they are sent. An event the topic rejects may then fail the "
                    + "events batched with it; keep producer-batch-size at or below the topic's limit, or allow the "
                    + "relay DescribeConfigs on it.", topic, e.toString());
            limit = Optional.empty();
        }
        limits.put(topic, limit);
        return limit;
    }
}
