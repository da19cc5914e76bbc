package io.outboxrelay.publish;

import java.util.Properties;
import java.util.concurrent.TimeUnit;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;

import org.apache.camel.CamelContext;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.component.kafka.KafkaConfiguration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Asks the transport's broker whether it answers: Kafka through an admin client built from the Kafka component's own
 * settings (so security options apply), JMS by opening and closing a connection. Other endpoint schemes have no probe
 * and count as reachable.
 */
public interface BrokerProbe {

    int TIMEOUT_MS = 3_000;

    /** @return null when the broker answers, else why it does not */
    String problem();

    static BrokerProbe forScheme(String scheme, CamelContext context, ConnectionFactory jmsConnectionFactory) {
        return switch (scheme) {
            case "kafka" -> kafka(context);
            case "jms" -> () -> jms(jmsConnectionFactory);
            default -> () -> null;
        };
    }

    private static BrokerProbe kafka(CamelContext context) {
        return () -> {
            KafkaConfiguration kafka = context.getComponent("kafka", KafkaComponent.class).getConfiguration();
            Properties config = kafka.createProducerProperties();
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokers());
            config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
            config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
            // producer-only keys would be logged as unknown admin settings
            config.keySet().retainAll(AdminClientConfig.configNames());
            try (Admin admin = Admin.create(config)) {
                admin.describeCluster(new DescribeClusterOptions().timeoutMs(TIMEOUT_MS)).nodes()
                        .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return null;
            } catch (Exception e) {
                return "Kafka unreachable: " + (e.getCause() != null ? e.getCause() : e);
            }
        };
    }

    private static String jms(ConnectionFactory connectionFactory) {
        try (Connection connection = connectionFactory.createConnection()) {
            return null;
        } catch (Exception e) {
            return "JMS broker unreachable: " + e;
        }
    }
}
