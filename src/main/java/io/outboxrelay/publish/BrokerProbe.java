package io.outboxrelay.publish;

import java.util.function.Supplier;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;

/**
 * Asks the transport's broker whether it answers: Kafka through the relay's admin client ({@link KafkaAdmin}), JMS
 * (Artemis) and AMQP 1.0 (Qpid JMS) by opening and closing a connection. Other endpoint schemes have no probe and count
 * as reachable.
 */
public interface BrokerProbe {

    /** @return null when the broker answers, else why it does not */
    String problem();

    /**
     * @param jmsConnectionFactory asked for the factory only when a JMS broker is probed
     * @param amqpConnectionFactory asked for the factory only when an AMQP broker is probed
     */
    static BrokerProbe forScheme(String scheme, KafkaAdmin kafkaAdmin,
            Supplier<? extends ConnectionFactory> jmsConnectionFactory,
            Supplier<? extends ConnectionFactory> amqpConnectionFactory) {
        return switch (scheme) {
            case "kafka" -> kafkaAdmin::problem;
            case "jms" -> () -> connect("JMS", jmsConnectionFactory.get());
            case "amqp" -> () -> connect("AMQP", amqpConnectionFactory.get());
            default -> () -> null;
        };
    }

    private static String connect(String transport, ConnectionFactory connectionFactory) {
        try (Connection connection = connectionFactory.createConnection()) {
            // Qpid (AMQP) opens the connection on its first use, not in createConnection
            connection.start();
            return null;
        } catch (Exception e) {
            return transport + " broker unreachable: " + e;
        }
    }
}
