package io.outboxrelay.publish;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An event its topic would reject as too large is refused before it is sent; the limits come from a fake admin. */
class RecordSizeCheckTest {

    private static final int LIMIT = 2_000;

    private final DefaultCamelContext context = new DefaultCamelContext();
    private final FakeKafkaAdmin admin = new FakeKafkaAdmin().limit("orders", LIMIT);
    private final TopicLimits limits = new TopicLimits(admin);

    @Test
    void aRecordWellBelowTheLimitIsSent() {
        Exchange exchange = exchange(random(500));

        assertDoesNotThrow(() -> check("none").check(exchange));
        assertTrue(check("none").fits("kafka:orders", exchange.getMessage()));
        assertEquals(1, admin.times("orders"), "the kept limit is enough");
    }

    @Test
    void aRecordAboveTheLimitIsRefusedNamingTopicAndLimit() {
        Exchange exchange = exchange(random(LIMIT));

        RecordTooLargeException e = assertThrows(RecordTooLargeException.class, () -> check("none").check(exchange));

        assertTrue(e.getMessage().contains("topic orders"), e.getMessage());
        assertTrue(e.getMessage().contains("max.message.bytes " + LIMIT), e.getMessage());
        assertTrue(e.getMessage().contains("it was not sent"), e.getMessage());
        assertEquals(2, admin.times("orders"), "asked again: the limit may have been raised since");
    }

    @Test
    void aLimitRaisedSinceLetsTheRecordThrough() {
        Exchange exchange = exchange(random(LIMIT));
        RecordSizeCheck check = check("none");
        assertFalse(check.fits("kafka:orders", exchange.getMessage()));

        admin.limit("orders", 10 * LIMIT);

        assertDoesNotThrow(() -> check.check(exchange));
    }

    @Test
    void aRecordThatCompressesBelowTheLimitFits() {
        Message compressible = exchange("x".repeat(5 * LIMIT)).getMessage();

        assertTrue(check("lz4").fits("kafka:orders", compressible), "measured as the broker sees it");
        assertFalse(check("none").fits("kafka:orders", compressible));
    }

    @Test
    void theHeadersAndKeyCountTowardsTheSize() {
        Message message = exchange("{}").getMessage();
        assertTrue(check("none").fits("kafka:orders", message));

        message.setHeader("traceparent", "t".repeat(LIMIT));

        assertFalse(check("none").fits("kafka:orders", message));
    }

    @Test
    void aTopicWhoseLimitIsUnknownTakesAnything() {
        admin.fails("secret", new TopicAuthorizationException("denied"));
        Exchange exchange = exchange(random(10 * LIMIT));

        assertTrue(check("none").fits("kafka:secret", exchange.getMessage()));
    }

    @Test
    void otherTransportsAreNotChecked() {
        RecordSizeCheck check = new RecordSizeCheck(new Destinations(context, "jms:queue:orders"), limits, null);

        assertDoesNotThrow(() -> check.check(exchange(random(10 * LIMIT))));
        assertEquals(0, admin.asked.size());
    }

    private RecordSizeCheck check(String compression) {
        return new RecordSizeCheck(new Destinations(context, "kafka:orders"), limits, compression);
    }

    private Exchange exchange(String payload) {
        Exchange exchange = new DefaultExchange(context);
        exchange.getMessage().setHeader("ce_id", "e-1");
        exchange.getMessage().setHeader(KafkaConstants.KEY, "order-1");
        exchange.getMessage().setBody(payload.getBytes(StandardCharsets.UTF_8));
        return exchange;
    }

    /** Text that does not compress. */
    private static String random(int length) {
        Random random = new Random(length);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('!' + random.nextInt(90)));
        }
        return text.toString();
    }
}
