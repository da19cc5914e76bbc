package io.outboxrelay.publish;

import java.util.function.Supplier;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;

/**
 * Asks the transport's broker whether it answers: Kafka through the relay's admin client ({@link KafkaAdmin}), JMS by
 * opening and closing a connection. Other endpoint schemes have no probe and count as reachable.
 */
public interface BrokerProbe {

    /** @return null when the broker answers, else why it does not */
    String problem();

    /** @param jmsConnectionFactory asked for the factory only when a JMS broker is probed */
    static BrokerProbe forScheme(String scheme, KafkaAdmin kafkaAdmin,
            Supplier<? extends ConnectionFactory> jmsConnectionFactory) {
        return switch (scheme) {
            case "kafka" -> kafkaAdmin::problem;
            case "jms" -> () -> jms(jmsConnectionFactory.get());
            default -> () -> null;
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
