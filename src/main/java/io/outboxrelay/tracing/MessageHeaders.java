package io.outboxrelay.tracing;

import java.nio.charset.StandardCharsets;

import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import org.apache.camel.Message;

/**
 * A Camel message's headers as the carrier of W3C Trace Context ({@code traceparent}, {@code tracestate}): read as
 * strings (a Kafka consumer's header values arrive as bytes), written as strings (camel-kafka would send other types
 * as binary).
 */
enum MessageHeaders implements TextMapGetter<Message>, TextMapSetter<Message> {

    CARRIER;

    @Override
    public Iterable<String> keys(Message message) {
        return message.getHeaders().keySet();
    }

    @Override
    public String get(Message message, String name) {
        if (message == null) {
            return null;
        }
        Object value = message.getHeader(name);
        if (value instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return value == null ? null : value.toString();
    }

    @Override
    public void set(Message message, String name, String value) {
        if (message != null) {
            message.setHeader(name, value);
        }
    }
}
