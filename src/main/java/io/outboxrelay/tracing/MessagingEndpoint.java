package io.outboxrelay.tracing;

import org.apache.camel.Endpoint;

/**
 * What OpenTelemetry's messaging conventions name about an endpoint: its system (the URI's scheme: kafka, jms, amqp)
 * and its destination (the topic or queue: the URI's path without a JMS queue:/topic: prefix).
 */
record MessagingEndpoint(String system, String destination) {

    static MessagingEndpoint of(Endpoint endpoint) {
        return of(endpoint.getEndpointBaseUri());
    }

    /**
     * @param baseUri an endpoint's URI without its options, e.g. {@code kafka://orders} or {@code jms://queue:orders}
     */
    static MessagingEndpoint of(String baseUri) {
        int colon = baseUri.indexOf(':');
        String system = colon < 0 ? baseUri : baseUri.substring(0, colon);
        String path = colon < 0 ? "" : baseUri.substring(colon + 1);
        if (path.startsWith("//")) {
            path = path.substring(2);
        }
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        if (path.startsWith("queue:") || path.startsWith("topic:")) {
            path = path.substring(path.indexOf(':') + 1);
        }
        return new MessagingEndpoint(system, path);
    }

    /** The same system with another destination, or this one when there is none. */
    MessagingEndpoint withDestination(String other) {
        return other == null ? this : new MessagingEndpoint(system, other);
    }
}
