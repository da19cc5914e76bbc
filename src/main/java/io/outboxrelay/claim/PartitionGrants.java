package io.outboxrelay.claim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.EventBatch;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions a claim may read. The heartbeat route tells this instance's partitions (sql/heartbeat.sql); each
 * claim of the claim route is granted some of them, exclusively, until its batch is marked. That is what keeps a
 * key's events in order without a lease per row: a partition has one owner instance (its lease in the partitions
 * table) and, in that instance, one claim at a time.
 * <p>
 * Camel has no EIP for handing out a changing set of partitions to concurrent claims, so this small piece of state is
 * Java: the heartbeat's answer (owned partitions, confirmed until when, which are being given up), the partitions
 * granted now, and the ones whose last claim filled its share (they probably have more: the next grants prefer them).
 * <p>
 * A partition is granted only while its lease, as last confirmed, has more than a third of outbox.lease left: when the
 * database stops answering the heartbeat, claiming stops well before another instance may take the partition. A
 * partition being given up (rebalancing) is not granted any more, and is given up by the next heartbeat once no
 * claim of it is in progress.
 */
public class PartitionGrants {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionGrants.class);

    /** The exchange property that carries a claim's grant. */
    public static final String PROPERTY = "outboxGrant";

    /** What one claim may read: these partitions, at most perPartition events of each. */
    public record Grant(Integer[] partitions, int perPartition) {

        /** The parameters of sql/claim.sql. */
        public Map<String, Object> parameters() {
            return Map.of("partitions", partitions, "perPartition", perPartition);
        }
    }

    /** A partition this instance owns. */
    record Owned(int number, long confirmedUntilNanos, boolean givingUp) {
    }

    /** Told about every heartbeat's outcome (metrics). */
    public interface OwnershipListener {
        void owned(int partitions, int taken, int givenUp, int liveInstances);
    }

    private final int concurrentClaims;
    private final int claimLimit;
    private final long leaseNanos;
    private final OwnershipListener listener;

    private Map<Integer, Owned> owned = Map.of();
    private final Set<Integer> granted = new HashSet<>();
    private final Set<Integer> filled = new HashSet<>();
    private final Map<Grant, Integer> claimedByGrant = new HashMap<>();
    private int rotation;
    /** A claim found no partition free while others were granted: what woke it waits for their release. */
    private boolean wakeMissed;
    private long beatStartedNanos;
    private boolean heartbeatFailing;

    /**
     * @param concurrentClaims claims in progress at once, at most (outbox.concurrent-claims)
     * @param batchSize        events claimed and not yet marked by this instance, at most (outbox.batch-size): shared
     *                         evenly by the concurrent claims
     */
    public PartitionGrants(int concurrentClaims, int batchSize, Duration lease, OwnershipListener listener) {
        this.concurrentClaims = concurrentClaims;
        this.claimLimit = Math.max(1, batchSize / concurrentClaims);
        this.leaseNanos = lease.toNanos();
        this.listener = listener;
    }

    /** What started a claim (the body of the claim route's wake-ups). */
    public enum Wake {
        /** The poll timer's safety net: one claim reads every free partition a little. */
        POLL,
        /** Something arrived (an insert, a replay, partitions taken over): the claims that may run share them. */
        NEWS,
        /** A claim ended with more to do (its share filled, or news it could not take came meanwhile). */
        AGAIN
    }

    /**
     * A grant for one claim, or null when there is nothing to grant now (no partition owned and free, or as many
     * claims in progress as allowed). The poll's claim reads every free partition a little. Otherwise the claims that
     * may run share the free partitions: those whose last claim filled its share first, spread over the claims (each
     * then gets a whole share of events for them), the others evenly, the last claim taking whatever is free. News
     * that finds no partition free is remembered: the claims in progress may not see it, so the claims go again when
     * one ends (with AGAIN, which is not news: it cannot keep them going by itself).
     */
    public synchronized Grant take(Wake wake) {
        if (claimedByGrant.size() >= concurrentClaims) {
            wakeMissed |= wake == Wake.NEWS;
            return null;
        }
        long now = System.nanoTime();
        List<Integer> free = new ArrayList<>();
        for (Owned p : owned.values()) {
            if (!p.givingUp() && !granted.contains(p.number()) && p.confirmedUntilNanos() - now > leaseNanos / 3) {
                free.add(p.number());
            }
        }
        if (free.isEmpty()) {
            wakeMissed |= wake == Wake.NEWS && !granted.isEmpty();
            return null;
        }
        Collections.sort(free);
        // start at a different partition each time, so none waits behind the others
        Collections.rotate(free, -(rotation++ % free.size()));
        List<Integer> chosen = free;
        int slots = concurrentClaims - claimedByGrant.size();
        if (wake != Wake.POLL && slots > 1) {
            // partitions that filled their share are spread over the claims first; the rest is shared evenly, and the
            // last claim that may run takes whatever is free, so no partition waits while others are busy
            List<Integer> hot = new ArrayList<>(free);
            hot.retainAll(filled);
            int share = hot.isEmpty() ? (free.size() + slots - 1) / slots
                    : Math.max(1, (filled.size() + concurrentClaims - 1) / concurrentClaims);
            List<Integer> from = hot.isEmpty() ? free : hot;
            chosen = from.subList(0, Math.min(share, from.size()));
        }
        Grant grant = new Grant(chosen.toArray(new Integer[0]), Math.max(1, claimLimit / chosen.size()));
        granted.addAll(chosen);
        claimedByGrant.put(grant, 0);
        return grant;
    }

    /** The claim's events were read: they count as in flight until the grant is released. */
    public synchronized void claimed(@ExchangeProperty(PROPERTY) Grant grant,
            @ExchangeProperty(EventBatch.PROPERTY) EventBatch batch) {
        claimedByGrant.put(grant, batch.size());
    }

    /**
     * The claim is over (marked, or failed): its partitions are free again.
     *
     * @param batch null when the claim failed before it read the table
     * @return true when the claims should go again at once: the claim found events (there may be more, and an event
     *         that held its key back may have been published), or news came while no partition was free
     */
    public synchronized boolean release(@ExchangeProperty(PROPERTY) Grant grant,
            @ExchangeProperty(EventBatch.PROPERTY) EventBatch batch) {
        if (grant == null) {
            return false;
        }
        claimedByGrant.remove(grant);
        // greedy, as Camel's polling consumers are: a claim that found events looks again at once
        boolean again = wakeMissed || batch != null && batch.size() > 0;
        wakeMissed = false;
        Map<Integer, Integer> counts = batch == null ? Map.of() : batch.countsByPartition();
        for (Integer p : grant.partitions()) {
            granted.remove(p);
            if (counts.getOrDefault(p, 0) >= grant.perPartition()) {
                filled.add(p);
                again = true;
            } else {
                filled.remove(p);
            }
        }
        return again;
    }

    /** Parameters of sql/heartbeat.sql: events in flight, and the partitions being given up that drained. */
    public synchronized Map<String, Object> heartbeatParameters() {
        beatStartedNanos = System.nanoTime();
        int inFlight = claimedByGrant.values().stream().mapToInt(Integer::intValue).sum();
        Integer[] drained = owned.values().stream().filter(p -> p.givingUp() && !granted.contains(p.number()))
                .map(Owned::number).toArray(Integer[]::new);
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("inFlight", inFlight);
        parameters.put("drained", drained);
        return parameters;
    }

    /**
     * Takes in the heartbeat's answer: the partitions owned now, confirmed for outbox.lease from when the heartbeat
     * started.
     *
     * @return true when partitions were taken or given up: claims should look again
     */
    public synchronized boolean heartbeat(List<Map<String, Object>> rows) {
        if (heartbeatFailing) {
            LOG.info("Heartbeat answered again");
            heartbeatFailing = false;
        }
        Map<Integer, Owned> now = new HashMap<>();
        int taken = 0;
        int instances = 0;
        for (Map<String, Object> row : rows) {
            int number = ((Number) row.get("partition_number")).intValue();
            now.put(number, new Owned(number, beatStartedNanos + leaseNanos, Boolean.TRUE.equals(row.get("giving_up"))));
            taken += Boolean.TRUE.equals(row.get("taken")) ? 1 : 0;
            instances = ((Number) row.get("live_instances")).intValue();
        }
        int givenUp = (int) owned.keySet().stream().filter(p -> !now.containsKey(p)).count();
        owned = Map.copyOf(now);
        filled.retainAll(now.keySet());
        if (taken > 0 || givenUp > 0) {
            LOG.info("Partitions: {} owned ({} taken, {} given up), {} live instances", now.size(), taken, givenUp,
                    instances);
        }
        listener.owned(now.size(), taken, givenUp, instances);
        return taken > 0 || givenUp > 0;
    }

    /** One line when the heartbeat starts failing, one when it answers again. */
    public synchronized void heartbeatFailed(Exception cause) {
        if (!heartbeatFailing) {
            LOG.warn("Heartbeat failed; this instance stops claiming when its partitions' leases are no longer "
                    + "confirmed: {}", cause.getMessage());
            heartbeatFailing = true;
        }
    }

    /** Partitions with a claim in progress (kept on shutdown until their lease runs out). */
    public synchronized Integer[] busyPartitions() {
        return granted.toArray(new Integer[0]);
    }

    /** Stopping: nothing more is granted. */
    public synchronized void stop() {
        owned = Map.of();
    }
}
