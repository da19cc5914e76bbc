package io.outboxrelay.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.claim.Grant.Wake;
import io.outboxrelay.event.OutboxEvent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which partitions a claim may read: pure logic, no database. */
class PartitionGrantsTest {

    private final List<int[]> ownership = new ArrayList<>();
    /** Each PartitionGrants of a test with the ownership it asks (the heartbeat's answer). */
    private final Map<PartitionGrants, PartitionOwnership> owners = new IdentityHashMap<>();
    private final PartitionGrants grants = grants(4, 400, Duration.ofSeconds(30),
            (owned, taken, givenUp, instances) -> ownership.add(new int[] {owned, taken, givenUp, instances}));

    private PartitionGrants grants(int concurrentClaims, int batchSize, Duration lease,
            PartitionOwnership.OwnershipListener listener) {
        return grants(concurrentClaims, batchSize, false, lease, listener);
    }

    private PartitionGrants grants(int concurrentClaims, int batchSize, boolean oneClaimWithoutBacklog,
            Duration lease, PartitionOwnership.OwnershipListener listener) {
        PartitionOwnership owner = new PartitionOwnership(lease, listener);
        PartitionGrants made = new PartitionGrants(concurrentClaims, batchSize, oneClaimWithoutBacklog, owner);
        owners.put(made, owner);
        return made;
    }

    @Test
    void nothingIsGrantedBeforeTheFirstHeartbeat() {
        assertNull(grants.take(Wake.NEWS));
    }

    @Test
    void thePollsClaimReadsEveryFreePartitionALittleAndNewsMeanwhileIsNotLost() {
        assertTrue(beat(grants, rows(0, 8, false)), "partitions taken: claims look again");
        Grant grant = grants.take(Wake.POLL);
        assertNotNull(grant);
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), Set.copyOf(grant.partitions()));
        assertEquals(100 / 8, grant.perPartition(), "an even share of batch-size / concurrent-claims");
        assertNull(grants.take(Wake.AGAIN), "every partition is granted");
        assertFalse(grants.release(grant, grants.read(grant, List.of())), "no news came meanwhile, nothing found");
        grant = grants.take(Wake.POLL);
        assertNull(grants.take(Wake.NEWS), "every partition is granted");
        assertTrue(grants.release(grant, grants.read(grant, List.of())), "news came meanwhile: claim again");
        assertNotNull(grants.take(Wake.NEWS));
    }

    /**
     * A late commit's settle (a look, with the POLL wake) that comes while its partitions are being read: the claims
     * in progress may have read before the commit, so the claims go again when one ends; an AGAIN refused is not
     * remembered (it would keep the claims going by itself).
     */
    @Test
    void aLookThatFindsEveryPartitionGrantedIsNotLostButAnAgainIs() {
        beat(grants, rows(0, 8, false));
        Grant grant = grants.take(Wake.NEWS);
        assertNull(grants.take(Wake.POLL), "every partition is being read");
        assertTrue(grants.release(grant, grants.read(grant, List.of())), "the look came meanwhile: claim again");
        grant = grants.take(Wake.AGAIN);
        assertNull(grants.take(Wake.AGAIN), "every partition is being read");
        assertFalse(grants.release(grant, grants.read(grant, List.of())), "nothing came meanwhile");
    }

    @Test
    void aStoppingRelayGrantsNothingMoreSendsNothingMoreAndNoClaimGoesAgain() {
        beat(grants, rows(0, 8, false));
        Grant inProgress = grants.take(Wake.POLL);
        OutboxEvent.Batch read = grants.read(inProgress, batch(events(2, inProgress.perPartition())).events());

        grants.stopGranting();

        assertFalse(read.maySend(read.events().get(0).id()), "what the claim has not sent yet is not sent");
        assertNull(grants.take(Wake.NEWS), "no new claim, though partitions are free");
        assertFalse(grants.release(inProgress, read), "it filled its share, but does not go again");
        // the heartbeat goes on while the claims in progress finish (their leases stay confirmed)
        beat(grants, rows(0, 10, false));
        assertNull(grants.take(Wake.NEWS), "partitions confirmed meanwhile are not granted either");
    }

    @Test
    void inABacklogPartitionsThatFilledTheirShareAreSpreadOverTheClaimsAndOneClaimTakesAllTheOthers() {
        beat(grants, rows(0, 8, false));
        Grant cold = grants.take(Wake.POLL);
        // partitions 2 and 5 returned a full share: they have more; 6 returned one event, the others none
        OutboxEvent.Batch read = grants.read(cold, batch(events(2, cold.perPartition()), events(5, cold.perPartition()),
                events(6, 1)).events());
        assertTrue(grants.release(cold, read), "it filled its share of partitions 2 and 5: claim again at once");
        Grant first = grants.take(Wake.AGAIN);
        Grant second = grants.take(Wake.AGAIN);
        assertEquals(1, first.partitions().size(), "two hot partitions, four claims: one hot partition per claim");
        assertEquals(1, second.partitions().size());
        Set<Integer> hot = new HashSet<>();
        hot.addAll(first.partitions());
        hot.addAll(second.partitions());
        assertEquals(Set.of(2, 5), hot, "the hot ones first");
        assertEquals(100, first.perPartition(), "a hot partition gets the claim's whole share");
        Grant third = grants.take(Wake.AGAIN);
        assertEquals(Set.of(0, 1, 3, 4, 6, 7), Set.copyOf(third.partitions()),
                "no hot one left: one claim reads every other free partition, not an even share of them");
        assertEquals(100 / 6, third.perPartition());
        assertNull(grants.take(Wake.AGAIN), "a claim may run, but no partition is free");
        // the cold ones read short again: free at the read, and all for the next claim
        grants.read(third, List.of());
        assertEquals(Set.of(0, 1, 3, 4, 6, 7), Set.copyOf(grants.take(Wake.AGAIN).partitions()));
    }

    @Test
    void thePollsClaimReadsEveryFreePartitionInABacklogToo() {
        beat(grants, rows(0, 8, false));
        Grant cold = grants.take(Wake.POLL);
        OutboxEvent.Batch read = grants.read(cold, batch(events(2, cold.perPartition()), events(5, cold.perPartition()))
                .events());
        assertTrue(grants.release(cold, read), "partitions 2 and 5 filled their share: hot");
        Grant poll = grants.take(Wake.POLL);
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), Set.copyOf(poll.partitions()),
                "not a hot partition per claim: every free partition");
        assertEquals(100 / 8, poll.perPartition());
    }

    @Test
    void withoutABacklogOneClaimReadsEveryFreePartition() {
        // at a steady rate, claims that each found an event or two would cost a claim's CPU per event
        beat(grants, rows(0, 32, false));
        Grant first = grants.take(Wake.NEWS);
        assertEquals(32, first.partitions().size(), "news: not a share per claim that may run, every free partition");
        assertEquals(100 / 32, first.perPartition(), "the claim's share of batch-size spread over them");
        assertNull(grants.take(Wake.NEWS), "every partition is being read");

        // the first claim read short everywhere: every partition is free again while it sends its event
        OutboxEvent.Batch firstBatch = grants.read(first, List.of(event("a1", 7, "A")));
        Grant second = grants.take(Wake.AGAIN);
        assertEquals(32, second.partitions().size(), "no partition filled its share: AGAIN reads them all as well");
        assertEquals(List.of("a1"), second.inFlight());
        grants.read(second, List.of());
        Grant third = grants.take(Wake.NEWS);
        assertEquals(32, third.partitions().size(), "and so does news");
        grants.read(third, List.of());
        assertTrue(grants.release(second, OutboxEvent.Batch.of(List.of())), "the news refused meanwhile is told");
        assertFalse(grants.release(first, firstBatch));
    }

    @Test
    void oneClaimAtATimeWithoutABacklogWhenAskedSoAndConcurrentClaimsForABacklog() {
        // MariaDB's: two claims allowed, batch-size 640
        PartitionGrants serial = grants(2, 640, true, Duration.ofSeconds(30), (o, t, g, i) -> { });
        List<String> told = new ArrayList<>();
        serial.onClaimEnd(() -> told.add("claim ended"));
        beat(serial, rows(0, 32, false));
        assertFalse(serial.full());
        Grant first = serial.take(Wake.NEWS);
        assertTrue(serial.full(), "no backlog: one claim is every claim that may run (the watch need not look)");
        assertEquals(32, first.partitions().size());
        assertEquals(640 / 32, first.perPartition(), "no backlog: the claim has the whole batch-size");
        OutboxEvent.Batch firstBatch = serial.read(first, List.of(event("a1", 7, "A")));
        assertNull(serial.take(Wake.NEWS), "every partition is free again, but a claim is in progress");
        assertTrue(serial.release(first, firstBatch), "the news refused meanwhile is told when it ends");
        assertEquals(List.of("claim ended"), told, "the watch is told at once, before the route goes again");
        assertFalse(serial.full());

        Grant second = serial.take(Wake.AGAIN);
        assertEquals(20, second.perPartition());
        // MariaDB's claim reads the grant's oldest 640: partition 3's 20 are not its share filled, the claim read all
        assertFalse(serial.release(second, serial.read(second, events(3, 20))), "no backlog, nothing refused");
        Grant third = serial.take(Wake.NEWS);
        assertEquals(32, third.partitions().size());
        assertNull(serial.take(Wake.NEWS), "still one claim at a time");
        // the claim read its whole share, all of partition 3: a backlog
        assertTrue(serial.release(third, serial.read(third, events(3, 640))));
        Grant hot = serial.take(Wake.AGAIN);
        assertEquals(List.of(3), hot.partitions(), "a backlog: the hot partition first, with a claim's share");
        assertEquals(640 / 2, hot.perPartition());
        assertFalse(serial.full(), "a backlog: a second claim may run");
        Grant cold = serial.take(Wake.AGAIN);
        assertNotNull(cold, "and a second claim at once for the others");
        assertEquals(31, cold.partitions().size());
        assertTrue(serial.full());
        assertNull(serial.take(Wake.NEWS), "two claims in progress");
        assertEquals(3, told.size(), "told of every claim's end");
    }

    @Test
    void noMoreClaimsThanAllowedAtOnce() {
        beat(grants, rows(0, 32, false));
        // the poll's claim (a share of 100 / 32 = 3 per partition) fills partitions 0 to 4: they go first, spread
        Grant poll = grants.take(Wake.POLL);
        assertEquals(3, poll.perPartition());
        assertTrue(grants.release(poll, grants.read(poll, batch(events(0, 3), events(1, 3), events(2, 3),
                events(3, 3), events(4, 3)).events())));
        List<Grant> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(grants.take(Wake.AGAIN));
        }
        assertTrue(taken.stream().allMatch(g -> g != null));
        assertEquals(List.of(2, 2, 1), taken.subList(0, 3).stream().map(g -> g.partitions().size()).toList(),
                "the five that filled, ceil(5 / 4) = 2 per claim");
        assertEquals(27, taken.get(3).partitions().size(),
                "no hot one left: the next claim takes every other partition");
        assertNull(grants.take(Wake.NEWS), "four claims in progress");
        // the first claim failed before it read (batch null): its partitions are free again, and it asks for nothing
        assertTrue(grants.release(taken.get(0), null), "but the news refused meanwhile is told");
        assertNotNull(grants.take(Wake.NEWS));
    }

    @Test
    void aPartitionBeingGivenUpIsNotGrantedAndDrainsOnlyWhenItsClaimIsOver() {
        beat(grants, rows(0, 4, false));
        Grant grant = grants.take(Wake.POLL);
        List<Map<String, Object>> givingUp = rows(0, 4, false);
        givingUp.set(3, row(3, false, true));
        beat(grants, givingUp);
        assertArrayEquals(new Integer[0], (Integer[]) grants.heartbeatParameters().get("drained"),
                "partition 3 still has a claim in progress");
        // the claim read partition 3 short: free at once, but its event there is in flight until the claim is over
        OutboxEvent.Batch read = grants.read(grant, List.of(event("e3", 3, "k")));
        assertArrayEquals(new Integer[0], (Integer[]) grants.heartbeatParameters().get("drained"),
                "partition 3 still has an event in flight");
        grants.release(grant, read);
        assertArrayEquals(new Integer[] {3}, (Integer[]) grants.heartbeatParameters().get("drained"));
        Grant next = grants.take(Wake.POLL);
        assertEquals(Set.of(0, 1, 2), Set.copyOf(next.partitions()), "not granted while being given up");
    }

    @Test
    void aLeaseNotConfirmedForLongEnoughIsNotGranted() {
        // a lease of 3 ns has run out by the time the next call reads the clock
        PartitionGrants shortLease = grants(1, 10, Duration.ofNanos(3), (o, t, g, i) -> { });
        beat(shortLease, rows(0, 2, false));
        assertNull(shortLease.take(Wake.NEWS), "the lease as last confirmed has run out");
    }

    @Test
    void inFlightCountsTheEventsOfTheClaimsInProgress() {
        beat(grants, rows(0, 2, false));
        Grant grant = grants.take(Wake.POLL);
        OutboxEvent.Batch batch = grants.read(grant, batch(events(0, 3), events(1, 2)).events());
        assertEquals(5, grants.heartbeatParameters().get("inFlight"));
        grants.release(grant, batch);
        assertEquals(0, grants.heartbeatParameters().get("inFlight"));
        assertEquals(2, ownership.get(0)[0]);
    }

    @Test
    void aPartitionReadShortIsFreeAtTheReadAndTheNextGrantSkipsItsEventsInFlightWhileAFilledOneStaysWithItsClaim() {
        // three claims, a share of 12 / 3 = 4 events each: the poll's claim of two partitions reads 2 of each
        PartitionGrants small = grants(3, 12, Duration.ofSeconds(30), (o, t, g, i) -> { });
        beat(small, rows(0, 2, false));
        Grant first = small.take(Wake.POLL);
        assertEquals(Set.of(0, 1), Set.copyOf(first.partitions()));
        assertEquals(2, first.perPartition());
        // partition 0 read short (one event), partition 1 filled (two)
        OutboxEvent.Batch firstBatch = small.read(first, List.of(event("a1", 0, "A"), event("c1", 1, "C"),
                event("c2", 1, "C")));
        assertEquals(List.of("a1", "c1", "c2"), ids(firstBatch), "no key of these is in flight elsewhere: all sent");
        assertEquals(3, small.heartbeatParameters().get("inFlight"));

        // while the first claim is in progress (sending, marking), partition 0 is free: partition 1 is not
        Grant second = small.take(Wake.AGAIN);
        assertNotNull(second, "partition 0 was read short: free again right at the read");
        assertEquals(List.of(0), second.partitions(), "partition 1 filled its share: still the first's");
        assertEquals(List.of("a1"), second.inFlight(),
                "the next read of partition 0 skips the event the first claim still has in flight there (only)");
        assertArrayEquals(new String[] {"a1"}, (String[]) second.parameters().get("inFlight"), "sql/claim.sql's");
        assertNull(small.take(Wake.AGAIN), "both partitions are being read: a claim may run, no more");
        assertEquals(Set.of(0, 1), Set.of(small.busyPartitions()));

        // the second claim finds nothing: partition 0 is free again, and the first's event there still skipped
        assertFalse(small.release(second, small.read(second, List.of())));
        Grant third = small.take(Wake.AGAIN);
        assertEquals(List.of(0), third.partitions(), "partition 1 is still the first's");
        assertEquals(List.of("a1"), third.inFlight());

        // the first claim is over: partition 1 is free, first of all, with a whole share; nothing of it in flight
        assertTrue(small.release(first, firstBatch), "it filled its share of partition 1: claim again at once");
        assertEquals(0, small.heartbeatParameters().get("inFlight"));
        Grant fourth = small.take(Wake.AGAIN);
        assertEquals(List.of(1), fourth.partitions());
        assertEquals(4, fourth.perPartition(), "a partition that filled its share gets the claim's whole share");
        assertEquals(List.of(), fourth.inFlight(), "the first claim's events are no longer in flight");
    }

    @Test
    void aClaimThatFoundEventsButFilledNothingDoesNotClaimAgainAtOnce() {
        beat(grants, rows(0, 4, false));
        Grant grant = grants.take(Wake.NEWS);
        OutboxEvent.Batch read = grants.read(grant, List.of(event("a1", grant.partitions().get(0), "A"),
                event("b1", grant.partitions().get(0), "B")));
        assertEquals(2, read.size());
        assertFalse(grants.release(grant, read), "two events, short of the share: the new-events watch wakes the next");
    }

    @Test
    void theEventsOfAKeyInFlightInAnotherClaimWaitForItAndAreClaimedWhenItIsOver() {
        beat(grants, rows(0, 1, false));
        Grant first = grants.take(Wake.POLL);
        OutboxEvent.Batch firstBatch = grants.read(first, List.of(event("a1", 0, "A"), event("b1", 0, "B")));
        Grant second = grants.take(Wake.AGAIN);
        assertEquals(Set.of("a1", "b1"), Set.copyOf(second.inFlight()));

        // sql/claim.sql skipped a1 and b1 themselves; the later events of their keys came back
        OutboxEvent.Batch secondBatch = grants.read(second, List.of(event("a2", 0, "A"), event("c1", 0, "C"),
                event("b2", 0, "B"), event("c2", 0, "C")));
        assertEquals(List.of("c1", "c2"), ids(secondBatch),
                "a2 and b2 wait for a1 and b1 (key order); both events of C go, in order");
        assertEquals(4, grants.heartbeatParameters().get("inFlight"), "what was dropped is not in flight");

        assertTrue(grants.release(first, firstBatch),
                "events of its keys were left behind: claim again at once, though it filled nothing");
        Grant third = grants.take(Wake.AGAIN);
        assertEquals(Set.of("c1", "c2"), Set.copyOf(third.inFlight()), "a1 and b1 are no longer in flight");
        OutboxEvent.Batch thirdBatch = grants.read(third, List.of(event("a2", 0, "A"), event("b2", 0, "B")));
        assertEquals(List.of("a2", "b2"), ids(thirdBatch), "their keys are free: they go now");
        assertFalse(grants.release(second, secondBatch), "the waiting keys were claimed again once");
        assertFalse(grants.release(third, thirdBatch));
        assertEquals(0, grants.heartbeatParameters().get("inFlight"));
    }

    @Test
    void aClaimThatEndsDoesNotFreeAPartitionAnotherClaimIsReading() {
        // ChurnIT's order violations: the first claim's release freed partition 0 while the second was reading it,
        // and a third claim read it beside the second
        beat(grants, rows(0, 1, false));
        Grant first = grants.take(Wake.POLL);
        OutboxEvent.Batch firstBatch = grants.read(first, List.of(event("a1", 0, "A")));
        Grant second = grants.take(Wake.AGAIN);
        assertEquals(List.of(0), second.partitions());

        assertFalse(grants.release(first, firstBatch));
        assertArrayEquals(new Integer[] {0}, grants.busyPartitions(), "partition 0 is the second claim's");
        assertNull(grants.take(Wake.NEWS), "one claim reading partition 0 at a time");
        assertNull(grants.take(Wake.POLL), "the poll's neither");

        // a1 was in flight when the second claim was granted partition 0: had it failed, its failure might not be in
        // the second's snapshot, and a2 would overtake it
        OutboxEvent.Batch secondBatch = grants.read(second, List.of(event("a2", 0, "A")));
        assertEquals(List.of(), ids(secondBatch), "granted while a1 was in flight: a2 waits");
        assertTrue(grants.release(second, secondBatch), "news came while partition 0 was being read: claim again");
        Grant third = grants.take(Wake.NEWS);
        assertEquals(List.of(0), third.partitions());
        assertEquals(List.of("a2"), ids(grants.read(third, List.of(event("a2", 0, "A")))),
                "granted after a1's claim was over: a2 goes");
    }

    @Test
    void aKeyInFlightWhenTheClaimWasGrantedHoldsItsEventsBackThoughItsClaimEndedBeforeTheRead() {
        beat(grants, rows(0, 1, false));
        Grant a = grants.take(Wake.POLL);
        OutboxEvent.Batch aBatch = grants.read(a, List.of(event("e1", 0, "K")));
        Grant b = grants.take(Wake.AGAIN);
        assertEquals(List.of("e1"), b.inFlight());

        // e1 failed and its failure was recorded; its claim is over before b's statement returns, and that statement's
        // snapshot may not have the failure: it may return e2, which must not overtake e1
        aBatch.holdBackKeyOf("e1");
        grants.release(a, aBatch);
        assertEquals(0, grants.heartbeatParameters().get("inFlight"), "K is no longer in flight");
        OutboxEvent.Batch bBatch = grants.read(b, List.of(event("e2", 0, "K"), event("x1", 0, "X")));
        assertEquals(List.of("x1"), ids(bBatch), "K was in flight when b was granted: e2 is dropped, x1 goes");
        assertEquals(1, grants.heartbeatParameters().get("inFlight"), "what was dropped is not in flight");

        Grant c = grants.take(Wake.NEWS);
        assertEquals(List.of("x1"), c.inFlight(), "e1 is not skipped any more");
        assertEquals(List.of("e2"), ids(grants.read(c, List.of(event("e2", 0, "K")))),
                "granted after e1's claim was over (its statement sees what became of e1): e2 goes");
    }

    @Test
    void onlyTheReleaseOfTheClaimThatHadAKeyInFlightClaimsItsWaitingEventsAgain() {
        beat(grants, rows(0, 1, false));
        Grant a = grants.take(Wake.POLL);
        OutboxEvent.Batch aBatch = grants.read(a, List.of(event("e1", 0, "K")));
        Grant b = grants.take(Wake.AGAIN);
        OutboxEvent.Batch bBatch = grants.read(b, List.of(event("e2", 0, "K"), event("x1", 0, "X")));
        assertEquals(List.of("x1"), ids(bBatch), "e2 waits for e1");
        Grant c = grants.take(Wake.AGAIN);
        OutboxEvent.Batch cBatch = grants.read(c, List.of(event("y1", 0, "Y")));
        assertEquals(List.of("y1"), ids(cBatch));

        // claims of other keys end while K's claim is still sending: claiming again at once would find e2 held back
        // again, and again, as fast as the claims run
        assertFalse(grants.release(c, cBatch), "an unrelated claim: K is still in flight");
        assertFalse(grants.release(b, bBatch), "the claim that dropped e2 does not have K in flight either");
        assertTrue(grants.release(a, aBatch), "K's claim is over: its waiting event is claimed right after");

        Grant d = grants.take(Wake.AGAIN);
        OutboxEvent.Batch dBatch = grants.read(d, List.of(event("e2", 0, "K")));
        assertEquals(List.of("e2"), ids(dBatch));
        assertFalse(grants.release(d, dBatch), "e2 was claimed: K waits no more");
    }

    @Test
    void aGrantHasNoMorePartitionsThanEventsLeftSoNoClaimReadsMoreThanItsShare() {
        // two claims, batch-size 20: 10 per claim; with a partition more than that, a claim of one event of each
        // partition would read 12 (the helper saw 11 against the limit of 10)
        PartitionGrants capped = grants(2, 20, Duration.ofSeconds(30), (o, t, g, i) -> { });
        beat(capped, rows(0, 12, false));
        Grant first = capped.take(Wake.POLL);
        assertEquals(10, first.partitions().size(), "the claim's 10 events: 10 partitions, at least one event each");
        assertEquals(1, first.perPartition());
        List<OutboxEvent> read = new ArrayList<>();
        for (Integer p : first.partitions()) {
            read.add(event("e" + p, p, "k" + p));
        }
        OutboxEvent.Batch firstBatch = capped.read(first, read);
        assertEquals(10, capped.heartbeatParameters().get("inFlight"), "the most the claim can read: its share");

        Grant second = capped.take(Wake.NEWS);
        Set<Integer> left = new HashSet<>(Set.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
        left.removeAll(first.partitions());
        assertEquals(left, Set.copyOf(second.partitions()),
                "the first's partitions filled their share: still the first's");
        assertEquals(5, second.perPartition(), "two partitions share the claim's 10");
        assertTrue(capped.release(first, firstBatch));
    }

    @Test
    void noClaimWhileTheWholeBatchSizeIsInFlight() {
        // batch-size 2 for three claims: a claim's share rounds up to one event, and two claims take the whole batch
        PartitionGrants capped = grants(3, 2, Duration.ofSeconds(30), (o, t, g, i) -> { });
        beat(capped, rows(0, 5, false));
        Grant first = capped.take(Wake.POLL);
        assertEquals(1, first.partitions().size(), "one event left to claim: one partition");
        assertEquals(1, first.perPartition());
        OutboxEvent.Batch firstBatch = capped.read(first, List.of(event("e1", first.partitions().get(0), "K1")));
        Grant second = capped.take(Wake.NEWS);
        assertEquals(1, second.partitions().size());
        capped.read(second, List.of(event("e2", second.partitions().get(0), "K2")));
        assertEquals(2, capped.heartbeatParameters().get("inFlight"));
        assertEquals(3, 5 - capped.busyPartitions().length, "three partitions are free");

        assertTrue(capped.full(), "the whole batch-size in flight, with fewer claims than allowed");
        assertNull(capped.take(Wake.NEWS),
                "2 events in flight: nothing more, though a claim may run and partitions are free");
        assertNull(capped.take(Wake.POLL), "the poll's claim neither");
        assertTrue(capped.release(first, firstBatch));
        Grant next = capped.take(Wake.NEWS);
        assertNotNull(next, "a claim is over: its budget is back");
    }

    /** A heartbeat as the route runs it: started, its parameters read, then its answer. */
    private boolean beat(PartitionGrants grants, List<Map<String, Object>> rows) {
        PartitionOwnership owner = owners.get(grants);
        owner.startHeartbeat();
        grants.heartbeatParameters();
        return owner.heartbeat(rows);
    }

    private static List<Map<String, Object>> rows(int from, int to, boolean givingUp) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int p = from; p < to; p++) {
            rows.add(row(p, true, givingUp));
        }
        return rows;
    }

    private static Map<String, Object> row(int partition, boolean taken, boolean givingUp) {
        return Map.of("partition_number", partition, "taken", taken, "giving_up", givingUp, "live_instances", 1);
    }

    @SafeVarargs
    private static OutboxEvent.Batch batch(List<OutboxEvent>... events) {
        List<OutboxEvent> all = new ArrayList<>();
        for (List<OutboxEvent> e : events) {
            all.addAll(e);
        }
        return new OutboxEvent.Batch(all);
    }

    private static List<OutboxEvent> events(int partition, int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(new OutboxEvent(partition + "-" + i, i, partition, "order", "k" + partition, "E", "{}", null,
                    java.time.Instant.EPOCH, 0));
        }
        return events;
    }

    private static OutboxEvent event(String id, int partition, String aggregateId) {
        return new OutboxEvent(id, 0, partition, "order", aggregateId, "E", "{}", null, java.time.Instant.EPOCH, 0);
    }

    private static List<String> ids(OutboxEvent.Batch batch) {
        return batch.events().stream().map(OutboxEvent::id).toList();
    }
}
