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
import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions a claim may read. The heartbeat route tells this instance's partitions (sql/heartbeat.sql); each
 * claim of the claim route is granted some of them, exclusively, while it reads them. That is what keeps a key's
 * events in order without a lease per row: a partition has one owner instance (its lease in the partitions table)
 * and, in that instance, one claim reading it at a time.
 * <p>
 * A partition whose read came back short of its share (it has no backlog: the steady case) is free again as soon as
 * the claim has read it, so an event that arrives meanwhile is claimed at once instead of after the previous claim's
 * acknowledgements and mark (measured: that wait was most of the commit-to-broker latency at a steady rate). The
 * claimed events stay "in flight" until their claim is over: the next claims of the partition skip them
 * (sql/claim.sql's inFlight) and every event of their keys ({@link #read}), so a key's next event is sent only after
 * the previous one was acknowledged and marked, or failed and held its key: per-key order holds on failures too. A
 * partition whose read filled its share (a backlog) stays with its claim until the claim is over, as before: with a
 * backlog, most of the next events would belong to keys in flight.
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

    /**
     * What one claim may read: these partitions, at most perPartition events of each, skipping the events of earlier
     * claims still in flight there.
     */
    public record Grant(Integer[] partitions, int perPartition, String[] inFlight) {

        /** The parameters of sql/claim.sql. */
        public Map<String, Object> parameters() {
            return Map.of("partitions", partitions, "perPartition", perPartition, "inFlight", inFlight);
        }
    }

    /** A claim that has read: the batch it sends, and the partitions it filled its share of (held until it ends). */
    private record Claim(EventBatch batch, Set<Integer> held) {
    }

    /** A partition this instance owns. */
    record Owned(int number, long confirmedUntilNanos, boolean givingUp) {
    }

    /** Told about every heartbeat's outcome (metrics). */
    public interface OwnershipListener {
        void owned(int partitions, int taken, int givenUp, int liveInstances);
    }

    private final int concurrentClaims;
    private final int batchSize;
    private final int claimLimit;
    private final long leaseNanos;
    private final OwnershipListener listener;

    private Map<Integer, Owned> owned = Map.of();
    private final Set<Integer> granted = new HashSet<>();
    private final Set<Integer> filled = new HashSet<>();
    /** Claims in progress, each with what it read and the partitions it still holds (null before it has read). */
    private final Map<Grant, Claim> claims = new HashMap<>();
    /** Events claimed by claims not over yet, and the keys waiting for them. */
    private final EventsInFlight inFlight = new EventsInFlight();
    /** Per claim that has not read yet: the keys in flight in its partitions when it was granted them. */
    private final Map<Grant, Set<String>> keysInFlightAtGrant = new HashMap<>();
    private int rotation;
    /** A claim found no partition free while others were granted: what woke it waits for their release. */
    private boolean wakeMissed;
    private long beatStartedNanos;
    private boolean heartbeatFailing;
    private boolean stopping;

    /**
     * @param concurrentClaims claims in progress at once, at most (outbox.concurrent-claims)
     * @param batchSize        events claimed and not yet marked by this instance, at most (outbox.batch-size): shared
     *                         evenly by the concurrent claims
     */
    public PartitionGrants(int concurrentClaims, int batchSize, Duration lease, OwnershipListener listener) {
        this.concurrentClaims = concurrentClaims;
        this.batchSize = batchSize;
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
     * {@link #take(Wake)} for the claim route, whose wake-ups carry the wake's name: Camel converts a String to an
     * enum parameter through a type-converter lookup that misses, and that miss was a third of the claim threads'
     * samples at a steady rate (JFR).
     */
    public Grant grant(String wake) {
        return take(Wake.valueOf(wake));
    }

    /**
     * A grant for one claim, or null when there is nothing to grant now (no partition owned and free, or as many
     * claims in progress as allowed). The poll's claim reads every free partition a little. Otherwise the claims that
     * may run share the free partitions: those whose last claim filled its share first, spread over the claims (each
     * then gets a whole share of events for them), the others evenly, the last claim taking whatever is free. News or
     * a look (a late commit's settle) that finds no partition free is remembered: the claims in progress may not see
     * what it came for, so the claims go again when one ends (with AGAIN, which is not news: it cannot keep them going
     * by itself).
     */
    public synchronized Grant take(Wake wake) {
        if (stopping) {
            return null;
        }
        // at most outbox.batch-size events claimed and not yet settled, whatever the claims in progress
        int budget = Math.min(claimLimit, batchSize - inFlight.count());
        if (claims.size() >= concurrentClaims || budget < 1) {
            wakeMissed |= wake != Wake.AGAIN;
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
            wakeMissed |= wake != Wake.AGAIN && !granted.isEmpty();
            return null;
        }
        Collections.sort(free);
        // start at a different partition each time, so none waits behind the others
        Collections.rotate(free, -(rotation++ % free.size()));
        List<Integer> chosen = free;
        int slots = concurrentClaims - claims.size();
        List<Integer> hot = new ArrayList<>(free);
        hot.retainAll(filled);
        if (wake != Wake.POLL && slots > 1 && !hot.isEmpty()) {
            // a backlog: the partitions that filled their share are spread over the claims that may run, and the last
            // one takes whatever is free, so no partition waits while others are busy. Without a backlog one claim
            // reads every free partition: it is freed again as soon as it has read, and claims that each found an
            // event or two cost a claim's CPU per event (measured at a steady rate)
            int share = Math.max(1, (filled.size() + concurrentClaims - 1) / concurrentClaims);
            chosen = hot.subList(0, Math.min(share, hot.size()));
        }
        // never more partitions than events left to claim: each is read at least one event
        chosen = chosen.subList(0, Math.min(chosen.size(), budget));
        List<String> skipped = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        inFlight.collect(chosen, skipped, keys);
        Grant grant = new Grant(chosen.toArray(new Integer[0]), Math.max(1, budget / chosen.size()),
                skipped.toArray(new String[0]));
        granted.addAll(chosen);
        claims.put(grant, null);
        keysInFlightAtGrant.put(grant, keys);
        return grant;
    }

    /**
     * The claim read its partitions: the batch it sends is what it read less the events of keys that an earlier
     * claim still has in flight (they wait for it: their key's order). Those events are in flight until the grant is
     * released; the partitions whose read came back short are free for the next claims at once.
     *
     * @param claimed camel-sql's result of sql/claim.sql
     */
    public synchronized EventBatch read(@ExchangeProperty(ExchangeNames.GRANT) Grant grant, List<OutboxEvent> claimed) {
        List<OutboxEvent> sendable = new ArrayList<>(claimed.size());
        Map<Integer, Integer> counts = new HashMap<>();
        // a key in flight when the statement started may have failed and been released since, its failure not yet
        // visible to the statement's snapshot: its events wait too
        Set<String> inFlightAtGrant = keysInFlightAtGrant.remove(grant);
        for (OutboxEvent event : claimed) {
            counts.merge(event.partition(), 1, Integer::sum);
            if (inFlight.hasKey(event.key())) {
                inFlight.waitFor(event.key());
            } else if (inFlightAtGrant != null && inFlightAtGrant.contains(event.key())) {
                // its claim has ended already: claimed again when this one ends
                wakeMissed = true;
            } else {
                sendable.add(event);
            }
        }
        inFlight.add(sendable);
        Set<Integer> held = new HashSet<>();
        for (Integer p : grant.partitions()) {
            if (counts.getOrDefault(p, 0) < grant.perPartition()) {
                granted.remove(p);
            } else {
                held.add(p);
            }
        }
        EventBatch batch = EventBatch.of(sendable);
        claims.put(grant, new Claim(batch, held));
        return batch;
    }

    /**
     * The claim is over (marked, or failed): the partitions it still held are free again, its events no longer in
     * flight.
     *
     * @param batch null when the claim failed (nothing to claim again at once for it)
     * @return true when the claims should go again at once: the claim filled its share of a partition (there is
     *         more), or news came that no claim could take (no partition free, or events of keys in flight skipped)
     */
    public synchronized boolean release(@ExchangeProperty(ExchangeNames.GRANT) Grant grant,
            @ExchangeProperty(ExchangeNames.BATCH) EventBatch batch) {
        if (grant == null) {
            return false;
        }
        Claim claim = claims.remove(grant);
        keysInFlightAtGrant.remove(grant);
        boolean again = wakeMissed;
        wakeMissed = false;
        if (claim != null) {
            for (OutboxEvent event : claim.batch().events()) {
                // events of this key that other claims skipped meanwhile are claimed now
                again |= inFlight.remove(event);
                // an event that held its key back is settled: its key's later events may be claimable now
                again |= batch != null && event.holdsKey();
            }
        }
        // a partition read short was freed at the read (another claim may be reading it now); the ones it filled are
        // freed here, and go first at the next grants: greedy, as Camel's polling consumers are
        Set<Integer> held = claim == null ? Set.of(grant.partitions()) : claim.held();
        for (Integer p : grant.partitions()) {
            if (held.contains(p)) {
                granted.remove(p);
            }
            if (batch != null && claim != null && held.contains(p)) {
                filled.add(p);
                again = true;
            } else {
                filled.remove(p);
            }
        }
        return again && !stopping;
    }

    /** Parameters of sql/heartbeat.sql: events in flight, and the partitions being given up that drained. */
    public synchronized Map<String, Object> heartbeatParameters() {
        beatStartedNanos = System.nanoTime();
        Integer[] drained = owned.values().stream()
                .filter(p -> p.givingUp() && !granted.contains(p.number()) && !inFlight.inPartition(p.number()))
                .map(Owned::number).toArray(Integer[]::new);
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("inFlight", inFlight.count());
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
            now.put(number, new Owned(number, beatStartedNanos + leaseNanos,
                    Boolean.TRUE.equals(row.get("giving_up"))));
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

    /** Partitions with a claim in progress or events in flight (kept on shutdown until their lease runs out). */
    public synchronized Integer[] busyPartitions() {
        Set<Integer> busy = new HashSet<>(granted);
        busy.addAll(inFlight.partitions());
        return busy.toArray(new Integer[0]);
    }

    /**
     * The relay is stopping: no claim is granted any more, none goes again. The claims in progress finish the sends
     * under way and mark what was acknowledged; what they have not sent yet is not sent (released untouched, for the
     * partition's next owner: a stop takes one send, not the rest of a batch sent one by one). The heartbeat keeps
     * their partitions' leases until they are over.
     */
    public synchronized void stopGranting() {
        stopping = true;
        for (Claim claim : claims.values()) {
            if (claim != null) {
                claim.batch().stopSending();
            }
        }
    }

    /** Stopped: nothing is owned any more. */
    public synchronized void stop() {
        stopping = true;
        owned = Map.of();
    }
}
