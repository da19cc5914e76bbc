package io.outboxrelay.failure;

import java.net.ConnectException;
import java.time.Instant;
import java.util.List;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.metrics.RelayMetrics;
import io.outboxrelay.publish.UnpublishableEventException;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a failed attempt records (last_error, unpublishable) and what it changes (its key waits, metrics). */
class FailedAttemptsTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final FailedAttempts attempts = new FailedAttempts(new RelayMetrics(meters));
    private final DefaultCamelContext context = new DefaultCamelContext();

    @Test
    void theErrorIsTheExceptionsClassAndMessage() {
        assertEquals("java.net.ConnectException: Connection refused",
                FailedAttempts.describe(new ConnectException("Connection refused")));
        assertEquals("java.lang.IllegalStateException: null", FailedAttempts.describe(new IllegalStateException()));
        assertEquals("unknown failure", FailedAttempts.describe((Throwable) null));
    }

    @Test
    void aLongErrorIsCutToTwoThousandCharacters() {
        String message = "x".repeat(5_000);

        String error = FailedAttempts.describe(new IllegalArgumentException(message));

        assertEquals(2_000, error.length());
        assertTrue(error.startsWith("java.lang.IllegalArgumentException: xxx"), error);
        String exactly = "y".repeat(2_000 - "java.lang.IllegalArgumentException: ".length());
        assertEquals("java.lang.IllegalArgumentException: " + exactly,
                FailedAttempts.describe(new IllegalArgumentException(exactly)), "2000 characters are kept whole");
    }

    @Test
    void theCaughtExceptionBecomesTheHeadersOfTheSql() {
        Exchange exchange = caught(new RecordTooLargeException("too large for orders"));

        attempts.describe(exchange);

        assertEquals("org.apache.kafka.common.errors.RecordTooLargeException: too large for orders",
                exchange.getMessage().getHeader(ExchangeNames.ERROR));
        assertEquals(false, exchange.getMessage().getHeader(ExchangeNames.UNPUBLISHABLE),
                "too large for now: the topic's limit may be raised");
    }

    @Test
    void anUnpublishableRowIsSaidSo() {
        Exchange exchange = caught(new UnpublishableEventException("event e: headers are not valid JSON"));

        attempts.describe(exchange);

        assertEquals(true, exchange.getMessage().getHeader(ExchangeNames.UNPUBLISHABLE));
    }

    @Test
    void aRecordedFailureHoldsBackItsKeyAndCountsTheAttempt() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(event("a1", "A"), event("a2", "A"), event("b1", "B")));

        attempts.reportRecorded("PENDING", batch, "a1", caught(new IllegalStateException("boom")));

        assertFalse(batch.maySend("a2"));
        assertTrue(batch.maySend("b1"));
        assertEquals(1.0, meters.counter("outbox.publish.failures").count());
        assertEquals(0.0, meters.counter("outbox.events.failed").count(), "still PENDING: it will be retried");
    }

    @Test
    void anEventThatBecameFailedIsCountedAsFailed() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(event("a1", "A")));

        attempts.reportRecorded("FAILED", batch, "a1", caught(new IllegalStateException("boom")));

        assertEquals(1.0, meters.counter("outbox.publish.failures").count());
        assertEquals(1.0, meters.counter("outbox.events.failed").count());
    }

    @Test
    void aFailureNotWrittenIsNotCountedButStillHoldsItsKeyInTheBatch() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(event("a1", "A"), event("a2", "A"), event("b1", "B")));

        // the row was no longer PENDING, or no longer this instance's: the SQL returned no status
        attempts.reportRecorded(null, batch, "a1", caught(new IllegalStateException("boom")));

        assertFalse(batch.maySend("a2"));
        assertTrue(batch.maySend("b1"));
        assertEquals(0.0, meters.counter("outbox.publish.failures").count());
    }

    @Test
    void aSendThatFailedWhileTheRelayStopsEndsItsClaimsSendingAndCountsNothing() {
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(List.of(event("a1", "A"), event("b1", "B")));

        attempts.leaveForTheNextClaim(batch, "a1", caught(new IllegalStateException("producer not started")));

        assertFalse(batch.maySend("a1"));
        assertFalse(batch.maySend("b1"), "the rest of the claim stays PENDING, untouched");
        assertEquals(0.0, meters.counter("outbox.publish.failures").count());
    }

    private Exchange caught(Exception cause) {
        Exchange exchange = new DefaultExchange(context);
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, cause);
        return exchange;
    }

    private static OutboxEvent event(String id, String aggregateId) {
        return new OutboxEvent(id, 1, 0, "order", aggregateId, "Placed", "{}", null, Instant.EPOCH, 0);
    }
}
