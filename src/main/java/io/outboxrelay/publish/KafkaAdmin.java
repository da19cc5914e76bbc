package io.outboxrelay.publish;

import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.component.kafka.KafkaConfiguration;
import org.apache.camel.support.service.ServiceSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The relay's questions to the Kafka cluster (does it answer? how large a record batch does a topic accept?), asked
 * through one admin client built from the Kafka component's own settings, so security options apply. Created on
 * first use, closed with the Camel context.
 */
public class KafkaAdmin extends ServiceSupport {

    static final int TIMEOUT_MS = 3_000;

    private final CamelContext context;
    private Admin admin;

    public KafkaAdmin(CamelContext context) {
        this.context = context;
    }

    /** @return null when the cluster answers, else why it does not */
    public String problem() {
        try {
            admin().describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return "Kafka unreachable: " + e.getCause();
        } catch (Exception e) {
            return "Kafka unreachable: " + e;
        }
    }

    /**
     * The largest record batch the cluster accepts for a topic: its max.message.bytes, or for a topic that does not
     * exist yet, the broker's message.max.bytes, which it will be created with.
     *
     * @throws KafkaException the cluster did not tell: a {@link org.apache.kafka.common.errors.RetriableException}
     *                        when it did not answer in time, another one when it refused (e.g. not authorized)
     */
    public int maxMessageBytes(String topic) {
        try {
            return configValue(new ConfigResource(ConfigResource.Type.TOPIC, topic),
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        } catch (UnknownTopicOrPartitionException e) {
            Node node = answer(() -> admin().describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS)).stream().findFirst()
                    .orElseThrow(() -> new TimeoutException("no Kafka broker known yet"));
            return configValue(new ConfigResource(ConfigResource.Type.BROKER, node.idString()), "message.max.bytes");
        }
    }

    private int configValue(ConfigResource resource, String name) {
        Config config = answer(() -> admin().describeConfigs(List.of(resource),
                new DescribeConfigsOptions().timeoutMs(TIMEOUT_MS)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .get(resource));
        ConfigEntry entry = config.get(name);
        if (entry == null || entry.value() == null) {
            throw new KafkaException(resource + " has no " + name);
        }
        return Integer.parseInt(entry.value());
    }

    private interface Call<T> {
        T get() throws Exception;
    }

    /** The admin call's result, or its Kafka exception unwrapped (a timeout stays a retriable TimeoutException). */
    private static <T> T answer(Call<T> call) {
        try {
            return call.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KafkaException kafka) {
                throw kafka;
            }
            throw new KafkaException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("Kafka did not answer within " + TIMEOUT_MS + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException(e);
        } catch (KafkaException e) {
            throw e;
        } catch (Exception e) {
            throw new KafkaException(e);
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            KafkaConfiguration kafka = context.getComponent("kafka", KafkaComponent.class).getConfiguration();
            Properties config = kafka.createProducerProperties();
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokers());
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
            // producer-only keys would be logged as unknown admin settings
            config.keySet().retainAll(AdminClientConfig.configNames());
            admin = Admin.create(config);
        }
        return admin;
    }

    @Override
    protected synchronized void doStop() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(1));
            admin = null;
        }
    }
}
