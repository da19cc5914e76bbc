package io.outboxrelay.publish;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Expression;

/**
 * Where an event goes: outbox.endpoint evaluated on its message, as the publish routes' toD evaluates it (the
 * CloudEvents headers may be used in it, e.g. kafka:orders.${header.ce_type}). Parsed once.
 */
public class Destinations {

    private final Expression endpoint;

    public Destinations(CamelContext context, String endpointUri) {
        this.endpoint = context.resolveLanguage("simple").createExpression(endpointUri);
        this.endpoint.init(context);
    }

    public String uri(Exchange exchange) {
        return endpoint.evaluate(exchange, String.class);
    }

    public static boolean isKafka(String uri) {
        return uri.startsWith("kafka:");
    }

    /** kafka:TOPIC?options to TOPIC. */
    public static String kafkaTopic(String uri) {
        int options = uri.indexOf('?');
        String topic = uri.substring("kafka:".length(), options < 0 ? uri.length() : options);
        return topic.startsWith("//") ? topic.substring(2) : topic;
    }

    /** kafka:TOPIC?options to ?options (empty without options): what a Kafka URI says besides its topic. */
    public static String kafkaOptions(String uri) {
        int options = uri.indexOf('?');
        return options < 0 ? "" : uri.substring(options);
    }
}
