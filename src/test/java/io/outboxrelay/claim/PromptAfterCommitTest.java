package io.outboxrelay.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.outboxrelay.support.ContinuousWriter;
import io.outboxrelay.support.LateTransactions;
import io.outboxrelay.support.RelayInstance;
import io.outboxrelay.support.SharedKafka;
import io.outboxrelay.support.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Contract §4, "promptly after commit", tried as users meet it: a relay with the default poll (outbox.poll-delay-ms
 * 5 s) and wake-up, business transactions that commit long after their INSERT, and an unrelated transaction held
 * open all along (a report, a pg_dump, a session idle in transaction). Each event is published within 1 s of its
 * commit: found by the new-events watch when its writer ends (claim.NewEventsWatch), not by the poll. The
 * distribution: docs/BENCHMARKS.md, "late commits".
 */
@Tag("services")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PromptAfterCommitTest {

    private static final long PROMPT_MILLIS = 1_000;

    private TestDatabase db;
    private RelayInstance relay;
    private AutoCloseable stranger;

    @BeforeAll
    void startRelay() throws Exception {
        SharedKafka.broker().createTopic("outbox.event.prompt", 1, Map.of());
        db = TestDatabase.create();
        Map<String, String> settings = RelayInstance.settings(db, "kafka:outbox.event.prompt",
                SharedKafka.broker().bootstrapServers());
        // the defaults: the safety-net poll every 5 s
        settings.remove("outbox.poll-delay-ms");
        relay = RelayInstance.start(settings);
        stranger = LateTransactions.holdStranger(db);
    }

    @AfterAll
    void stopRelay() throws Exception {
        stranger.close();
        relay.close();
        db.close();
    }

    @Test
    void aLateCommitIsPublishedPromptlyWhileAStrangerStaysOpen() throws Exception {
        assertPrompt("quiet", List.of(Duration.ofMillis(1_500), Duration.ofMillis(2_000), Duration.ofMillis(2_500)));
    }

    @Test
    void aLateCommitIsPublishedPromptlyBesideOtherTraffic() throws Exception {
        try (ContinuousWriter traffic = new ContinuousWriter(db, "other", 100, 20, 10_000)) {
            assertPrompt("beside-traffic", List.of(Duration.ofMillis(1_500), Duration.ofMillis(2_000),
                    Duration.ofMillis(2_500)));
        }
    }

    @Test
    void fiftyConcurrentWritersThatCommitUpToTwoSecondsAfterTheirInsertArePublishedPromptly() throws Exception {
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            delays.add(Duration.ofMillis(ThreadLocalRandom.current().nextLong(2_001)));
        }
        assertPrompt("concurrent", delays);
    }

    private void assertPrompt(String type, List<Duration> delays) throws Exception {
        List<LateTransactions.Committed> committed = LateTransactions.write(db, type, delays);
        long[] millis = LateTransactions.commitToPublishMillis(db, type, committed, Duration.ofSeconds(30));
        assertEquals(delays.size(), millis.length);
        long slowest = Arrays.stream(millis).max().orElseThrow();
        assertTrue(slowest < PROMPT_MILLIS, "commit to publication (ms): " + Arrays.toString(millis));
    }
}
