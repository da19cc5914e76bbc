package io.outboxrelay.tracing;

import java.util.Map;
import java.util.Properties;

import org.apache.camel.Message;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultMessage;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When tracing is on, and how the spans name an endpoint and read a message's trace context. */
class TracingSwitchTest {

    @Test
    void onOnlyWhenOpenTelemetrysEnvironmentSaysSomething() {
        Properties none = new Properties();
        assertFalse(Tracing.isConfigured(Map.of(), none));
        assertFalse(Tracing.isConfigured(Map.of("OUTBOX_DB_URL", "jdbc:postgresql://db/app", "OTELX", "1"), none));
        assertTrue(Tracing.isConfigured(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"), none));
        assertTrue(Tracing.isConfigured(Map.of("OTEL_SERVICE_NAME", "orders-relay"), none));
        Properties system = new Properties();
        system.setProperty("otel.exporter.otlp.endpoint", "http://collector:4318");
        assertTrue(Tracing.isConfigured(Map.of(), system));
    }

    @Test
    void theSdksOwnSwitchTurnsItOff() {
        assertFalse(Tracing.isConfigured(Map.of("OTEL_SERVICE_NAME", "relay", "OTEL_SDK_DISABLED", "true"),
                new Properties()));
        Properties system = new Properties();
        system.setProperty("otel.sdk.disabled", "true");
        assertFalse(Tracing.isConfigured(Map.of("OTEL_SERVICE_NAME", "relay"), system));
        assertTrue(Tracing.isConfigured(Map.of("OTEL_SERVICE_NAME", "relay", "OTEL_SDK_DISABLED", "false"),
                new Properties()));
    }

    @Test
    void offMakesNothing() {
        Tracing off = Tracing.fromEnvironment(Map.of(), new Properties());
        assertFalse(off.isOn());
        assertNull(off.tracer());
    }

    @Test
    void endpointsAreNamedAsTheMessagingConventionsAsk() {
        assertEquals(new MessagingEndpoint("kafka", "outbox.event.order"),
                MessagingEndpoint.of("kafka://outbox.event.order"));
        assertEquals(new MessagingEndpoint("jms", "orders"), MessagingEndpoint.of("jms://queue:orders"));
        assertEquals(new MessagingEndpoint("jms", "prices"), MessagingEndpoint.of("jms://topic:prices"));
        assertEquals(new MessagingEndpoint("amqp", "orders"), MessagingEndpoint.of("amqp://queue:orders"));
        assertEquals(new MessagingEndpoint("amqp", "orders"),
                MessagingEndpoint.of("amqp:queue:orders?transacted=true"));
        assertEquals(new MessagingEndpoint("direct", "source"), MessagingEndpoint.of("direct://source"));
    }

    @Test
    void traceContextIsReadFromStringOrByteHeadersAndWrittenAsStrings() {
        Message message = new DefaultMessage(new DefaultCamelContext());
        message.setHeader("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".getBytes());
        assertEquals("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                MessageHeaders.CARRIER.get(message, "traceparent"));
        MessageHeaders.CARRIER.set(message, "tracestate", "writer=1");
        assertEquals("writer=1", message.getHeader("tracestate"));
        assertNull(MessageHeaders.CARRIER.get(message, "baggage"));
    }
}
