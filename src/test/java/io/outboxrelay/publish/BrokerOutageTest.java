package io.outboxrelay.publish;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.outboxrelay.event.EventBatch;
import io.outboxrelay.event.OutboxEvent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When a failed send counts as a broker outage, and how claiming pauses and resumes: on a clock the test moves. */
class BrokerOutageTest {

    private final MovableClock clock = new MovableClock();
    private final AtomicInteger probes = new AtomicInteger();
    private volatile String problem;
    private final BrokerOutage outage = new BrokerOutage(() -> {
        probes.incrementAndGet();
        return problem;
    }, clock);

    @Test
    void aBrokerThatAnswersTheProbeIsNoOutage() {
        assertFalse(outage.isBrokerUnreachable(), "the failure is the message's");
        assertFalse(outage.isDown());
        assertTrue(outage.mayClaim());
    }

    @Test
    void aBrokerThatDoesNotAnswerPausesClaimingForASecond() {
        problem = "connection refused";

        assertTrue(outage.isBrokerUnreachable());
        assertFalse(outage.isDown(), "a question only: the failure routes pause the claims");
        outage.pauseClaims(null);
        assertTrue(outage.isDown());
        assertFalse(outage.mayClaim());
        clock.advance(Duration.ofMillis(999));
        assertFalse(outage.mayClaim());
        assertEquals(1, probes.get(), "no probe during the pause");
    }

    @Test
    void claimingResumesAtTheFirstProbeThatIsAnswered() {
        problem = "connection refused";
        startOutage();

        problem = null;
        clock.advance(Duration.ofMillis(1001));

        assertTrue(outage.mayClaim());
        assertFalse(outage.isDown());
        assertEquals(2, probes.get());
    }

    @Test
    void theProbeAtTheEndOfThePauseIsAFreshOne() {
        problem = "connection refused";
        startOutage();

        problem = null;
        clock.advance(Duration.ofSeconds(1));

        assertTrue(outage.mayClaim(), "the broker answers now: the probe from the outage's start does not count");
        assertEquals(2, probes.get());
    }

    @Test
    void whileTheBrokerStaysDownThePauseDoublesUpToTenSeconds() {
        problem = "connection refused";
        startOutage();
        long[] expectedPauses = {2_000, 4_000, 8_000, 10_000, 10_000};
        clock.advance(Duration.ofMillis(1_001));

        for (long pause : expectedPauses) {
            assertFalse(outage.mayClaim(), "probed, still down");
            clock.advance(Duration.ofMillis(pause - 1));
            assertFalse(outage.mayClaim(), "paused for " + pause + " ms");
            clock.advance(Duration.ofMillis(2));
        }
        assertEquals(1 + expectedPauses.length, probes.get(), "one probe per pause");
    }

    @Test
    void afterARecoveryTheNextOutageStartsWithTheShortPauseAgain() {
        problem = "down";
        startOutage();
        clock.advance(Duration.ofMillis(1_001));
        outage.mayClaim(); // still down: the pause is now 2 s
        problem = null;
        clock.advance(Duration.ofMillis(2_001));
        assertTrue(outage.mayClaim());

        problem = "down again";
        clock.advance(Duration.ofMillis(1_001));
        startOutage();
        clock.advance(Duration.ofMillis(1_001));
        problem = null;
        assertTrue(outage.mayClaim(), "the pause is one second again, not the two of the last outage");
    }

    @Test
    void oneProbeAnswersForTheFailuresOfASecond() {
        for (int i = 0; i < 50; i++) {
            assertFalse(outage.isBrokerUnreachable());
        }
        assertEquals(1, probes.get(), "a batch of failing events does not probe per event");

        clock.advance(Duration.ofMillis(1_001));
        problem = "gone";
        assertTrue(outage.isBrokerUnreachable());
        assertEquals(2, probes.get());
    }

    @Test
    void whileDownEveryFailureIsAnOutageWithoutProbing() {
        problem = "down";
        startOutage();
        problem = null;
        clock.advance(Duration.ofSeconds(5));

        assertTrue(outage.isBrokerUnreachable(), "only mayClaim's probe ends an outage");
        assertEquals(1, probes.get());
    }

    @Test
    void pausingStopsTheClaimsSending() {
        problem = "down";
        EventBatch batch = EventBatch.of(List.of(new OutboxEvent("a1", 1, 0, "order", "A", "E", "{}", null,
                Instant.EPOCH, 0)));
        assertTrue(outage.isBrokerUnreachable());
        outage.pauseClaims(batch);
        assertFalse(batch.maySend("a1"), "nothing more of the claim is sent");
        assertTrue(outage.isDown());
    }

    /** What the failure routes do when a send failed and the broker does not answer. */
    private void startOutage() {
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
