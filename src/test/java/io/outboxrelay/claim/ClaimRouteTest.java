package io.outboxrelay.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import io.outboxrelay.support.RelayRoutesTestSupport;
import org.apache.camel.Exchange;
import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.component.mock.MockEndpoint;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claim route (routes/claim.camel.yaml) as a route, with the publish and failure routes: a wake-up claims a
 * batch (the claim SQL advised into a mock returning rows), sends it one by one (outbox.endpoint is a mock, not a
 * Kafka topic, so nothing goes in parts) and marks what was acknowledged (the mark SQL advised into a mock that
 * shows the ids).
 */
// a route that redelivers forever would otherwise hang the unit layer
@Timeout(20)
class ClaimRouteTest extends RelayRoutesTestSupport {

    @Override
    protected List<String> routeFiles() {
        return CLAIM_PATH_ROUTES;
    }

    @Override
    protected Properties properties() {
        Properties properties = super.properties();
        // two claims may run, a share of 20 / 2 = 10 events each: a wake-up (NEWS) is still one claim; a claim that
        // filled its share (10 events of partition 0) is followed by one per claim that may run (AGAIN), one that
        // read fewer by none (the new-events watch brings the next wake-up)
        properties.setProperty("outbox.concurrent-claims", "2");
        properties.setProperty("outbox.batch-size", "20");
        return properties;
    }

    @Override
    protected void advise() throws Exception {
        adviseClaimRoutes();
    }

    @BeforeEach
    void ownsPartitionZero() {
        ownPartitionZero();
    }

    @Test
    void aMixedBatchMarksWhatWasAcknowledgedAndHoldsBackTheFailedKey() throws Exception {
        // claim order: a1 fails; a2 and a3 are behind it on key A; b1 and c1 are other keys
        claimReturns(event("a1", "A"), event("b1", "B"), event("a2", "A"), event("c1", "C"), event("a3", "A"));
        MockEndpoint broker = getMockEndpoint(ORDERS);
        broker.whenAnyExchangeReceived(exchange -> {
            if ("a1".equals(exchange.getMessage().getHeader("ce_id"))) {
                throw new IllegalStateException("rejected");
            }
        });
        MockEndpoint recorded = getMockEndpoint(RECORD_FAILURE);
        recorded.expectedMessageCount(1);
        recorded.expectedPropertyReceived(ExchangeNames.EVENT_ID, "a1");
        MockEndpoint mark = getMockEndpoint(MARK);
        mark.expectedMessageCount(1);

        claimAndWait();

        MockEndpoint.assertIsSatisfied(recorded, mark);
        assertEquals(Set.of("b1", "c1"), markedIds(0));
        int redeliveries = Integer.parseInt(
                context.resolvePropertyPlaceholders("{{outbox.redelivery.maximum-redeliveries}}"));
        List<Object> expected = new ArrayList<>(Collections.nCopies(1 + redeliveries, "a1"));
        expected.addAll(List.of("b1", "c1"));
        List<Object> sent = broker.getReceivedExchanges().stream().map(e -> e.getMessage().getHeader("ce_id")).toList();
        assertEquals(expected, sent, "a1 with its redeliveries, then the other keys in claim order; a2 and a3 never");
        assertEquals(5.0, count("outbox.events.claimed"));
        assertEquals(2.0, count("outbox.events.published"));
        assertEquals(1.0, count("outbox.publish.failures"));
    }

    @Test
    void theClaimReadsTheGrantedPartitionsAndReleasesThemAfterwards() throws Exception {
        claimReturns(event("a1", "A"));
        MockEndpoint claim = getMockEndpoint(CLAIM);

        claimAndWait();

        Map<?, ?> parameters = claim.getReceivedExchanges().get(0).getMessage().getBody(Map.class);
        assertArrayEquals(new Integer[] {0}, (Integer[]) parameters.get("partitions"));
        int perClaim = Integer.parseInt(context.resolvePropertyPlaceholders("{{outbox.batch-size}}"))
                / Integer.parseInt(context.resolvePropertyPlaceholders("{{outbox.concurrent-claims}}"));
        assertEquals(perClaim, parameters.get("perPartition"), "one partition: the claim's whole share");
        assertEquals(0, partitionGrants.busyPartitions().length);
        assertEquals(Set.of("a1"), markedIds(0));
    }

    @Test
    void aBrokerOutageStopsTheBatchMarksWhatWasAcknowledgedAndPausesClaiming() throws Exception {
        claimReturns(event("a1", "A"), event("b1", "B"), event("c1", "C"));
        brokerProblem = "Kafka unreachable";
        MockEndpoint broker = getMockEndpoint(ORDERS);
        broker.whenAnyExchangeReceived(exchange -> {
            if ("b1".equals(exchange.getMessage().getHeader("ce_id"))) {
                throw new TimeoutException("Expiring 1 record(s)");
            }
        });
        getMockEndpoint(RECORD_FAILURE).expectedMessageCount(0);
        getMockEndpoint(MARK).expectedMessageCount(1);
        getMockEndpoint(CLAIM).expectedMessageCount(1);

        claimAndWait();
        // news during the outage: the claim it starts must not read the table
        claimAndWait(1);

        MockEndpoint.assertIsSatisfied(context);
        assertEquals(Set.of("a1"), markedIds(0));
        // b1's first failure has the broker probed; its redelivery finds the outage
        assertEquals(List.of("a1", "b1", "b1"),
                broker.getReceivedExchanges().stream().map(e -> e.getMessage().getHeader("ce_id")).toList(),
                "c1 is not sent into an outage");
        assertTrue(brokerOutage.isDown());
        assertEquals(0.0, count("outbox.publish.failures"));
    }

    @Test
    void aClaimThatFilledItsShareIsFollowedByAnotherAtOnce() throws Exception {
        OutboxEvent[] share = new OutboxEvent[10];
        for (int i = 0; i < share.length; i++) {
            share[i] = event("e" + i, "K" + i);
        }
        claimReturns(share);
        MockEndpoint claim = getMockEndpoint(CLAIM);

        // this claim and the ones it asks for afterwards (AGAIN: one per claim that may run), which find nothing (or
        // no partition free) and ask for no other
        NotifyBuilder fourth = claimsDone(4);
        claimAndWait(3);
        assertFalse(fourth.matches(300, TimeUnit.MILLISECONDS), "the claims after it read short: no other");

        // the second claim after it reads partition 0 too if the first had read it (short: free again) by then
        assertTrue(claim.getReceivedCounter() >= 2, "partition 0 was read again");
        for (Exchange read : claim.getReceivedExchanges().subList(1, claim.getReceivedCounter())) {
            Map<?, ?> again = read.getMessage().getBody(Map.class);
            assertArrayEquals(new Integer[] {0}, (Integer[]) again.get("partitions"), "partition 0 again");
            assertArrayEquals(new String[0], (String[]) again.get("inFlight"), "the first claim's events are marked");
        }
        assertEquals(10, markedIds(0).size());
        assertEquals(0, partitionGrants.busyPartitions().length);
    }

    @Test
    void aMarkThatFailsLeavesTheEventsPendingAndFreesThePartitions() throws Exception {
        claimReturns(event("a1", "A"));
        getMockEndpoint(MARK).whenExchangeReceived(1, exchange -> {
            throw new IllegalStateException("database went away");
        });

        claimAndWait(1);

        assertEquals(1, getMockEndpoint(ORDERS).getReceivedCounter(), "sent");
        assertEquals(0.0, count("outbox.events.published"), "but not counted: not marked");
        assertEquals(0, partitionGrants.busyPartitions().length, "the next claim may read them again");
        assertEquals(0, getMockEndpoint(RECORD_FAILURE).getReceivedCounter(), "the event did not fail");
    }

    @Test
    void aClaimThatFailedIsNotRepeatedAtOnce() throws Exception {
        // the rows stay PENDING, so every claim reads them again: were a failed claim followed by another at once, a
        // mark that keeps failing would send the same events again and again, as fast as the loop runs
        MockEndpoint claim = getMockEndpoint(CLAIM);
        claim.whenAnyExchangeReceived(exchange -> exchange.getMessage().setBody(List.of(event("a1", "A"))));
        getMockEndpoint(MARK).whenAnyExchangeReceived(exchange -> {
            throw new IllegalStateException("permission denied for table outbox");
        });

        claimAndWait(1);

        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> claim.getReceivedCounter() == 1);
        assertEquals(1, getMockEndpoint(ORDERS).getReceivedCounter(), "sent once, until a poll or a wake-up");
    }

    // --- helpers

    /** The claim SQL's answer: these rows the first time, none afterwards. */
    private void claimReturns(OutboxEvent... events) {
        MockEndpoint claim = getMockEndpoint(CLAIM);
        claim.whenExchangeReceived(1, exchange -> exchange.getMessage().setBody(List.of(events)));
        claim.whenAnyExchangeReceived(exchange -> exchange.getMessage().setBody(List.of()));
    }

    /**
     * Wakes the claims as new events do (claim.NewEventsWatch, when an insert moved the outbox's sequence), waits for
     * this claim, and checks that no other follows: the wake-up is one claim (not one per claim that may run), and a
     * claim that read short of its share asks for none.
     */
    private void claimAndWait() {
        NotifyBuilder followed = claimsDone(2);
        claimAndWait(1);
        assertFalse(followed.matches(300, TimeUnit.MILLISECONDS),
                "one claim per wake-up, and a claim that filled nothing is followed by no other at once");
    }

    private void claimAndWait(int claimCount) {
        NotifyBuilder claims = claimsDone(claimCount);
        template.sendBody("direct:outbox-wake", null);
        assertTrue(claims.matches(10, TimeUnit.SECONDS), "the claims did not finish");
    }

    /** Done once this many claims have ended, counted from now. */
    private NotifyBuilder claimsDone(int claimCount) {
        // the claims' own exchanges, not the split's exchange per event
        return new NotifyBuilder(context).fromRoute("outbox-claim")
                .filter(exchange -> exchange.getProperty(Exchange.SPLIT_INDEX) == null).whenDone(claimCount).create();
    }

    private Set<String> markedIds(int index) {
        Map<?, ?> parameters = getMockEndpoint(MARK).getReceivedExchanges().get(index).getMessage().getBody(Map.class);
        return Set.of((String[]) parameters.get("ids"));
    }
}
