package io.outboxrelay.publish;

import java.util.Optional;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Each topic's record size limit: asked once, kept, asked again on demand; unknown when the relay may not read it. */
class TopicLimitsTest {

    private final FakeKafkaAdmin admin = new FakeKafkaAdmin();
    private final TopicLimits limits = new TopicLimits(admin);

    @Test
    void aTopicsLimitIsAskedOnceAndKept() {
        admin.limit("orders", 1_000).limit("payments", 2_000);

        assertEquals(Optional.of(1_000), limits.limit("orders"));
        assertEquals(Optional.of(1_000), limits.limit("orders"));
        assertEquals(Optional.of(2_000), limits.limit("payments"));
        assertEquals(1, admin.times("orders"));
    }

    @Test
    void aRefreshAsksAgainAndKeepsTheNewAnswer() {
        admin.limit("orders", 1_000);
        limits.limit("orders");
        admin.limit("orders", 5_000);

        assertEquals(Optional.of(5_000), limits.refresh("orders"));
        assertEquals(Optional.of(5_000), limits.limit("orders"));
        assertEquals(2, admin.times("orders"));
    }

    @Test
    void aLimitTheRelayMayNotReadIsUnknownAndNotAskedAgain() {
        admin.fails("orders", new TopicAuthorizationException("no DescribeConfigs"));

        assertEquals(Optional.empty(), limits.limit("orders"));
        assertEquals(Optional.empty(), limits.limit("orders"));
        assertEquals(1, admin.times("orders"));
    }

    @Test
    void aClusterThatDoesNotAnswerIsAskedAgainNextTime() {
        TimeoutException timeout = new TimeoutException("no answer");
        admin.fails("orders", timeout);

        assertSame(timeout, assertThrows(TimeoutException.class, () -> limits.limit("orders")),
                "retriable: the send fails as one to an unreachable broker");
        admin.limit("orders", 1_000);
        assertEquals(Optional.of(1_000), limits.limit("orders"), "a timeout is not kept as unknown");
    }
}
