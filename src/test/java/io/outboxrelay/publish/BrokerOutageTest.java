package io.outboxrelay.publish;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.jms.UncategorizedJmsException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a failed send counts as a broker outage, and how claiming pauses and resumes: on a clock the test moves, with a
 * probe the test answers.
 */
class BrokerOutageTest {

    private final MovableClock clock = new MovableClock();
    private final AtomicInteger probes = new AtomicInteger();
    private volatile String problem;
    private final AtomicInteger probingStarted = new AtomicInteger();
    private final BrokerOutage outage = new BrokerOutage(() -> {
        probes.incrementAndGet();
        return problem;
    }, clock, probingStarted::incrementAndGet);

    @Test
    void aBrokerThatAnswersTheProbeIsNoOutage() throws Exception {
        failedSend();
        assertFalse(outage.isBrokerUnreachable(), "the failure is the message's");
        assertFalse(outage.isDown());
        assertTrue(outage.mayClaim());
    }

    @Test
    void theQuestionsAnswerFromTheLastProbeWithoutProbing() {
        problem = "connection refused";
        for (int i = 0; i < 10; i++) {
            assertFalse(outage.isBrokerUnreachable(), "no probe yet: nothing known against the broker");
            assertTrue(outage.mayClaim());
            assertFalse(outage.isDown());
        }
        assertEquals(0, probes.get());
    }

    @Test
    void aFailedSendHasTheBrokerProbedAndAnUnreachableBrokerPausesClaiming() throws Exception {
        problem = "connection refused";
        failedSend();
        assertEquals(1, probes.get());
        assertTrue(outage.isBrokerUnreachable());
        assertFalse(outage.isDown(), "a question only: the failure routes pause the claims");
        outage.pauseClaims(null);
        assertTrue(outage.isDown());
        assertFalse(outage.mayClaim());
    }

    @Test
    void oneProbeAnswersForTheFailuresOfASecond() throws Exception {
        for (int i = 0; i < 50; i++) {
            failedSend();
        }
        assertEquals(1, probes.get(), "a batch of failing events does not probe per event");

        clock.advance(Duration.ofMillis(1_000));
        problem = "gone";
        failedSend();
        assertTrue(outage.isBrokerUnreachable());
        assertEquals(2, probes.get());
    }

    @Test
    void theProbeRouteEndsTheOutageAtTheFirstAnswerAndSaysSoOnce() throws Exception {
        problem = "connection refused";
        startOutage();
        outage.pauseClaims(null);
        assertEquals(1, probingStarted.get(), "the probe route is started once, when the outage begins");
        for (int i = 0; i < 30; i++) {
            clock.advance(Duration.ofSeconds(1));
            assertFalse(outage.probeBroker(), "still down, however long it lasts: probed every time");
            assertFalse(outage.mayClaim());
        }
        problem = null;
        clock.advance(Duration.ofSeconds(1));
        assertTrue(outage.probeBroker(), "the broker answers: claims resume at once");
        assertTrue(outage.mayClaim());
        assertFalse(outage.isBrokerUnreachable());
        assertFalse(outage.probeBroker(), "no outage to end any more");
        assertEquals(33, probes.get());
        problem = "down again";
        clock.advance(Duration.ofSeconds(1));
        startOutage();
        assertEquals(2, probingStarted.get(), "the next outage starts it again");
    }

    @Test
    void whileDownEveryFailureIsAnOutageWithoutProbing() throws Exception {
        problem = "down";
        startOutage();
        problem = null;
        failedSend();
        assertTrue(outage.isBrokerUnreachable(), "only the probe route's probe ends an outage");
        assertEquals(1, probes.get());
    }

    @Test
    void pausingStopsTheClaimsSending() throws Exception {
        problem = "down";
        var batch = OutboxEvent.Batch.of(List.of(new OutboxEvent("a1", 1, 0, "order", "A", "E", "{}", null,

                Instant.EPOCH, 0)));
        failedSend();
        assertTrue(outage.isBrokerUnreachable());
        outage.pauseClaims(batch);
        assertFalse(batch.maySend("a1"), "nothing more of the claim is sent");
        assertTrue(outage.isDown());
    }

    /** The failure routes' onExceptionOccurred after a send that timed out. */
    private void failedSend() throws Exception {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setException(new TimeoutException("Expiring 1 record(s)"));
        outage.probeAfterFailure().process(exchange);
    }

    @Test
    void onlyATransportFailureHasTheBrokerProbed() throws Exception {
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setException(new IllegalStateException("the broker rejected it"));
        outage.probeAfterFailure().process(exchange);
        assertEquals(0, probes.get());
        assertTrue(BrokerOutage.isTransportFailure(new IllegalStateException(new ConnectException("refused"))),
                "a cause counts");
        assertTrue(BrokerOutage.isTransportFailure(new UncategorizedJmsException("AMQ219010")));
        assertFalse(BrokerOutage.isTransportFailure(new RecordTooLargeException("too large")));
    }

    /** What the failure routes do when a send failed and the broker does not answer. */
    private void startOutage() throws Exception {
        failedSend();
        assertTrue(outage.isBrokerUnreachable());
        outage.pauseClaims(null);
    }

    /** A clock the test moves by hand. */
    static final class MovableClock extends Clock {

        private Instant now = Instant.parse("2024-01-01T00:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
