package io.outboxrelay.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.EventBatch;
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
    private final PartitionGrants grants = new PartitionGrants(4, 400, Duration.ofSeconds(30),
            (owned, taken, givenUp, instances) -> ownership.add(new int[] {owned, taken, givenUp, instances}));

    @Test
    void nothingIsGrantedBeforeTheFirstHeartbeat() {
        assertNull(grants.take(PartitionGrants.Wake.NEWS));
    }

    @Test
    void thePollsClaimReadsEveryFreePartitionALittleAndNewsMeanwhileIsNotLost() {
        assertTrue(beat(grants, rows(0, 8, false)), "partitions taken: claims look again");
        PartitionGrants.Grant grant = grants.take(PartitionGrants.Wake.POLL);
        assertNotNull(grant);
        assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), Set.of(grant.partitions()));
        assertEquals(100 / 8, grant.perPartition(), "an even share of batch-size / concurrent-claims");
        assertNull(grants.take(PartitionGrants.Wake.AGAIN), "every partition is granted");
        assertFalse(grants.release(grant, batch()), "no news came meanwhile, nothing found");
        grant = grants.take(PartitionGrants.Wake.POLL);
        assertNull(grants.take(PartitionGrants.Wake.NEWS), "every partition is granted");
        assertTrue(grants.release(grant, batch()), "news came meanwhile: claim again");
        assertNotNull(grants.take(PartitionGrants.Wake.NEWS));
    }

    @Test
    void inABacklogPartitionsThatFilledTheirShareAreSpreadOverTheClaimsAndTheLastTakesTheRest() {
        beat(grants, rows(0, 8, false));
        PartitionGrants.Grant cold = grants.take(PartitionGrants.Wake.POLL);
        // partitions 2 and 5 returned a full share: they have more
        assertTrue(grants.release(cold, batch(events(2, cold.perPartition()), events(5, cold.perPartition()),
                events(6, 1))));
        PartitionGrants.Grant first = grants.take(PartitionGrants.Wake.AGAIN);
        PartitionGrants.Grant second = grants.take(PartitionGrants.Wake.AGAIN);
        Set<Integer> hot = new HashSet<>();
        hot.addAll(List.of(first.partitions()));
        hot.addAll(List.of(second.partitions()));
        assertEquals(Set.of(2, 5), hot, "one hot partition per claim");
        assertEquals(100, first.perPartition(), "a hot partition gets the claim's whole share");
        PartitionGrants.Grant third = grants.take(PartitionGrants.Wake.AGAIN);
        assertEquals(3, third.partitions().length, "the cold ones are shared by the claims left");
        PartitionGrants.Grant fourth = grants.take(PartitionGrants.Wake.AGAIN);
        Set<Integer> cold6 = new HashSet<>(List.of(third.partitions()));
        cold6.addAll(List.of(fourth.partitions()));
        assertEquals(Set.of(0, 1, 3, 4, 6, 7), cold6, "the last claim takes the rest");
    }

    @Test
    void newsIsSharedByTheClaimsThatMayRun() {
        beat(grants, rows(0, 32, false));
        Set<Integer> all = new HashSet<>();
        for (int i = 0; i < 4; i++) {
            PartitionGrants.Grant grant = grants.take(PartitionGrants.Wake.NEWS);
            assertEquals(8, grant.partitions().length);
            all.addAll(List.of(grant.partitions()));
        }
        assertEquals(32, all.size(), "every partition in one of them");
    }

    @Test
    void noMoreClaimsThanAllowedAtOnce() {
        beat(grants, rows(0, 32, false));
        grants.release(grants.take(PartitionGrants.Wake.POLL), batch(events(0, 3), events(1, 3), events(2, 3),
                events(3, 3), events(4, 3)));
        List<PartitionGrants.Grant> taken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            taken.add(grants.take(PartitionGrants.Wake.AGAIN));
        }
        assertTrue(taken.stream().allMatch(g -> g != null));
        assertEquals(27, taken.get(3).partitions().length, "the last claim that may run takes every other partition");
        assertNull(grants.take(PartitionGrants.Wake.NEWS), "four claims in progress");
        grants.release(taken.get(0), null);
        assertNotNull(grants.take(PartitionGrants.Wake.NEWS));
    }

    @Test
    void aPartitionBeingGivenUpIsNotGrantedAndDrainsOnlyWhenItsClaimIsOver() {
        beat(grants, rows(0, 4, false));
        PartitionGrants.Grant grant = grants.take(PartitionGrants.Wake.POLL);
        List<Map<String, Object>> givingUp = rows(0, 4, false);
        givingUp.set(3, row(3, false, true));
        beat(grants, givingUp);
        assertArrayEquals(new Integer[0], (Integer[]) grants.heartbeatParameters().get("drained"),
                "partition 3 still has a claim in progress");
        grants.release(grant, batch());
        assertArrayEquals(new Integer[] {3}, (Integer[]) grants.heartbeatParameters().get("drained"));
        PartitionGrants.Grant next = grants.take(PartitionGrants.Wake.POLL);
        assertEquals(Set.of(0, 1, 2), Set.of(next.partitions()), "not granted while being given up");
    }

    @Test
    void aLeaseNotConfirmedForLongEnoughIsNotGranted() {
        // a lease of 3 ns has run out by the time the next call reads the clock
        PartitionGrants shortLease = new PartitionGrants(1, 10, Duration.ofNanos(3), (o, t, g, i) -> { });
        beat(shortLease, rows(0, 2, false));
        assertNull(shortLease.take(PartitionGrants.Wake.NEWS), "the lease as last confirmed has run out");
    }

    @Test
    void inFlightCountsTheEventsOfTheClaimsInProgress() {
        beat(grants, rows(0, 2, false));
        PartitionGrants.Grant grant = grants.take(PartitionGrants.Wake.POLL);
        EventBatch batch = batch(events(0, 3), events(1, 2));
        grants.claimed(grant, batch);
        assertEquals(5, grants.heartbeatParameters().get("inFlight"));
        grants.release(grant, batch);
        assertEquals(0, grants.heartbeatParameters().get("inFlight"));
        assertEquals(2, ownership.get(0)[0]);
    }

    /** A heartbeat as the route runs it: its parameters read when it starts, then its answer. */
    private static boolean beat(PartitionGrants grants, List<Map<String, Object>> rows) {
        grants.heartbeatParameters();
        return grants.heartbeat(rows);
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
    private static EventBatch batch(List<OutboxEvent>... events) {
        List<OutboxEvent> all = new ArrayList<>();
        for (List<OutboxEvent> e : events) {
            all.addAll(e);
        }
        return new EventBatch(all);
    }

    private static List<OutboxEvent> events(int partition, int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(new OutboxEvent(partition + "-" + i, i, partition, "order", "k" + partition, "E", "{}", null,
                    java.time.Instant.EPOCH, 0));
        }
        return events;
    }
}
