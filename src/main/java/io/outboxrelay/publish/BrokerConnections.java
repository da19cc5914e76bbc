package io.outboxrelay.publish;

import java.util.function.Supplier;

import jakarta.jms.ConnectionFactory;

import io.outboxrelay.settings.RelaySettings;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.Component;
import org.apache.camel.component.jms.JmsComponent;
import org.apache.camel.spi.ComponentCustomizer;
import org.apache.camel.spi.Registry;
import org.apache.camel.util.function.Suppliers;
import org.apache.qpid.jms.JmsConnectionFactory;
import org.springframework.jms.connection.CachingConnectionFactory;

/**
 * The brokers the relay talks to besides Kafka: the connection factories of jms: (ActiveMQ Artemis) and amqp: (AMQP
 * 1.0, Qpid JMS) endpoints, and the probe that tells whether the configured endpoint's broker answers.
 */
public final class BrokerConnections {

    private BrokerConnections() {
    }

    /** Binds jmsConnectionFactory, amqpConnectionFactory and the customizer that gives each component its own. */
    public static BrokerProbe bind(CamelContext context, RelaySettings settings, KafkaAdmin kafkaAdmin) {
        Registry registry = context.getRegistry();
        // Made on first use, like the Qpid JMS client's of amqp: endpoints: loading the Artemis client takes a fifth of
        // a second of the start, and most relays publish to Kafka. Spring's caching factory keeps one connection and
        // session per producer instead of one per message.
        Supplier<ActiveMQConnectionFactory> jms = Suppliers.memorize(
                () -> new ActiveMQConnectionFactory(settings.jmsBrokerUrl()));
        registry.bind("jmsConnectionFactory", ConnectionFactory.class, () -> new CachingConnectionFactory(jms.get()));
        Supplier<JmsConnectionFactory> amqp = Suppliers.memorize(() -> amqpConnectionFactory(settings.amqpBrokerUrl()));
        registry.bind("amqpConnectionFactory", ConnectionFactory.class, () -> new CachingConnectionFactory(amqp.get()));
        // With two connection factories bound neither component would find its own by type: each is given its own by
        // name when it is created, i.e. on first use (a camel.component.*.connection-factory property would create
        // both at start). The endpoint's component exists already: reading the settings checked its scheme.
        ComponentCustomizer connectionFactoryByName = ComponentCustomizer.builder()
                .withCondition((name, component) -> (name.equals("jms") || name.equals("amqp"))
                        && component instanceof JmsComponent)
                .build((name, component) -> ((JmsComponent) component).setConnectionFactory(
                        registry.lookupByNameAndType(name + "ConnectionFactory", ConnectionFactory.class)));
        registry.bind("connectionFactoryByName", connectionFactoryByName);
        Component endpointComponent = context.hasComponent(settings.endpointScheme());
        if (endpointComponent != null
                && connectionFactoryByName.isEnabled(settings.endpointScheme(), endpointComponent)) {
            connectionFactoryByName.configure(settings.endpointScheme(), endpointComponent);
        }
        return BrokerProbe.forScheme(settings.endpointScheme(), kafkaAdmin, jms, amqp);
    }

    /**
     * The Qpid JMS client of amqp: endpoints. Every send waits for the broker to settle the message (an event is
     * marked PUBLISHED only after that), persistent or not. Qpid waits for ever by default for a send and for the
     * broker's answers (a link attach the broker leaves unanswered, credit it withholds under a memory alarm): here
     * they fail after 10 s, as a Kafka send gives up within 15 s, so a claim never hangs. The URL's jms.* options are
     * applied after these and override them.
     */
    static JmsConnectionFactory amqpConnectionFactory(String brokerUrl) {
        JmsConnectionFactory factory = new JmsConnectionFactory();
        factory.setForceSyncSend(true);
        factory.setSendTimeout(10_000);
        factory.setRequestTimeout(10_000);
        factory.setRemoteURI(brokerUrl);
        return factory;
    }
}
