package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.ExchangeNames;
import io.outboxrelay.event.OutboxEvent;
import org.apache.camel.ExchangeProperty;

/**
 * Which of this instance's partitions ({@link PartitionOwnership}) each claim reads, exclusively while it reads them:
 * with one owner instance per partition, that keeps a key's events in order without a lease per row.
 * <p>
 * A partition read short of its share (no backlog: the steady case) is free again once the claim has read it, so an
 * event that arrives meanwhile is claimed at once, not after the previous claim's sends and mark (measured: that wait
 * was most of the commit-to-broker latency at a steady rate). The claimed events stay "in flight" until their claim is
 * over: the next claims skip them (sql/claim.sql's inFlight) and every event of their keys ({@link #read}), so a key's
 * next event is sent only after the previous one was acknowledged and marked, or failed and held its key. A partition
 * whose read filled its share (a backlog) stays with its claim until it is over: most of its next events would belong
 * to keys in flight.
 * <p>
 * Camel has no EIP for handing out a changing set of partitions to concurrent claims, so this state is Java: the
 * partitions granted now, the events and keys in flight ({@link EventsInFlight}), which free partitions a claim reads
 * ({@link PartitionChoice}). A partition being given up is left once no claim of it is in progress
 * ({@link #heartbeatParameters}).
 */
public class PartitionGrants {

    /** A claim in progress: keys in flight in its partitions at its grant; once read, its batch and its held ones. */
    private record Claim(Set<String> keysInFlightAtGrant, OutboxEvent.Batch batch, Set<Integer> held) {
    }

    private final int concurrentClaims;
    private final int batchSize;
    private final int claimLimit;
    private final boolean oneClaimWithoutBacklog;
    private final PartitionOwnership ownership;

    private final Set<Integer> granted = new HashSet<>();
    private final Map<Grant, Claim> claims = new HashMap<>();
    private final PartitionChoice choice;
    /** Events claimed by claims not over yet, and the keys waiting for them. */
    private final EventsInFlight inFlight = new EventsInFlight();
    private long grantsMade;
    /** A claim found no partition free while others were granted: what woke it waits for their release. */
    private boolean wakeMissed;
    private boolean stopping;
    private volatile Runnable claimEndListener = () -> { };

    /**
     * @param concurrentClaims       claims in progress at once, at most (outbox.concurrent-claims)
     * @param batchSize              events claimed and not yet marked by this instance, at most (outbox.batch-size):
     *                               shared evenly by the concurrent claims
     * @param oneClaimWithoutBacklog MariaDB's: without a backlog one claim at a time, of the whole batch-size, as its
     *                               claim and mark cost the writers more per call (at 32 writers, overlapping claims
     *                               made 16-25 a second: docs/BENCHMARKS.md); and its claim reads the grant's oldest
     *                               events up to its whole share, so only a claim that read that much is a backlog
     * @param ownership              the partitions that may be granted
     */
    public PartitionGrants(int concurrentClaims, int batchSize, boolean oneClaimWithoutBacklog,
            PartitionOwnership ownership) {
        this.concurrentClaims = concurrentClaims;
        this.batchSize = batchSize;
        this.claimLimit = Math.max(1, batchSize / concurrentClaims);
        this.oneClaimWithoutBacklog = oneClaimWithoutBacklog;
        this.ownership = ownership;
        this.choice = new PartitionChoice(concurrentClaims);
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
    public synchronized Grant take(Grant.Wake wake) {
        if (stopping) {
            return null;
        }
        if (full()) {
            wakeMissed |= wake != Grant.Wake.AGAIN;
            return null;
        }
        int budget = budget();
        List<Integer> free = new ArrayList<>(ownership.claimable(System.nanoTime()));
        free.removeAll(granted);
        if (free.isEmpty()) {
            wakeMissed |= wake != Grant.Wake.AGAIN && !granted.isEmpty();
            return null;
        }
        boolean othersMayRun = concurrentClaims - claims.size() > 1;
        List<Integer> chosen = choice.choose(free, wake != Grant.Wake.POLL && othersMayRun, budget);
        List<String> skipped = new ArrayList<>();
        List<Integer> skippedPartitions = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        inFlight.collect(chosen, skipped, skippedPartitions, keys);
        Grant grant = new Grant(++grantsMade, List.copyOf(chosen), Math.max(1, budget / chosen.size()),
                List.copyOf(skipped), List.copyOf(skippedPartitions));
        granted.addAll(chosen);
        claims.put(grant, new Claim(keys, null, null));
        return grant;
    }

    /** Every claim that may run is running, or the events in flight leave none to claim: no grant now. */
    public synchronized boolean full() {
        return claims.size() >= (alone() ? 1 : concurrentClaims) || budget() < 1;
    }

    private boolean alone() {
        return oneClaimWithoutBacklog && !choice.backlog();
    }

    /** The events the next claim may read: at most outbox.batch-size claimed and not settled, whatever the claims. */
    private int budget() {
        return Math.min(alone() ? batchSize : claimLimit, batchSize - inFlight.count());
    }

    /** Told whenever a claim ends (the new-events watch, which does not look while {@link #full}). */
    public void onClaimEnd(Runnable listener) {
        claimEndListener = listener;
    }

    /**
     * The claim read its partitions: the batch it sends is what it read less the events of keys that an earlier
     * claim still has in flight (they wait for it: their key's order). Those events are in flight until the grant is
     * released; the partitions whose read came back short are free for the next claims at once.
     *
     * @param claimed camel-sql's result of sql/claim.sql
     */
    public synchronized OutboxEvent.Batch read(@ExchangeProperty(ExchangeNames.GRANT) Grant grant,
            List<OutboxEvent> claimed) {
        List<OutboxEvent> sendable = new ArrayList<>(claimed.size());
        Map<Integer, Integer> counts = new HashMap<>();
        // a key in flight when the statement started may have failed and been released since, its failure not yet
        // visible to the statement's snapshot: its events wait too
        Set<String> inFlightAtGrant = claims.get(grant).keysInFlightAtGrant();
        for (OutboxEvent event : claimed) {
            counts.merge(event.partition(), 1, Integer::sum);
            if (inFlight.hasKey(event.key())) {
                inFlight.waitFor(event.key());
            } else if (inFlightAtGrant.contains(event.key())) {
                // its claim has ended already: claimed again when this one ends
                wakeMissed = true;
            } else {
                sendable.add(event);
            }
        }
        inFlight.add(sendable);
        // MariaDB's claim reads the grant's oldest events: read short as a whole, it left nothing in any partition
        boolean readEverything = oneClaimWithoutBacklog
                && claimed.size() < (long) grant.perPartition() * grant.partitions().size();
        Set<Integer> held = new HashSet<>();
        for (Integer p : grant.partitions()) {
            if (readEverything || counts.getOrDefault(p, 0) < grant.perPartition()) {
                granted.remove(p);
            } else {
                held.add(p);
            }
        }
        OutboxEvent.Batch batch = OutboxEvent.Batch.of(sendable);
        claims.put(grant, new Claim(Set.of(), batch, held));
        return batch;
    }

    /**
     * A wake-up was refused since the last claim ended or read (its partitions were being read, or the events of a key
     * were skipped): the claim route starts a claim once a claim has read, as the partitions it read short are free
     * again, instead of after that claim's sends and mark. Returns whether a claim should start now (then settled).
     */
    public synchronized boolean takeMissedWake() {
        boolean missed = wakeMissed && !stopping;
        wakeMissed = false;
        return missed;
    }

    /**
     * The claim is over (marked, or failed): the partitions it still held are free again, its events not in flight.
     *
     * @param batch null when the claim failed (nothing to claim again at once for it)
     * @return true when the claims should go again at once: the claim filled its share of a partition (there is
     *         more), or news came that no claim could take (no partition free, or events of keys in flight skipped)
     */
    public synchronized boolean release(@ExchangeProperty(ExchangeNames.GRANT) Grant grant,
            @ExchangeProperty(ExchangeNames.BATCH) OutboxEvent.Batch batch) {
        if (grant == null) {
            return false;
        }
        Claim claim = claims.remove(grant);
        claimEndListener.run();
        boolean read = claim != null && claim.batch() != null;
        boolean again = wakeMissed;
        wakeMissed = false;
        if (read) {
            for (OutboxEvent event : claim.batch().events()) {
                // events of this key that other claims skipped meanwhile are claimed now
                again |= inFlight.remove(event);
                // an event that held its key back is settled: its key's later events may be claimable now
                again |= batch != null && event.holdsKey();
            }
        }
        // a partition read short was freed at the read (another claim may be reading it now); the ones it filled are
        // freed here, and go first at the next grants: greedy, as Camel's polling consumers are
        Set<Integer> held = read ? claim.held() : Set.copyOf(grant.partitions());
        for (Integer p : grant.partitions()) {
            if (held.contains(p)) {
                granted.remove(p);
            }
            boolean filledItsShare = batch != null && read && held.contains(p);
            choice.claimEnded(p, filledItsShare);
            again |= filledItsShare;
        }
        return again && !stopping;
    }

    /** Parameters of sql/heartbeat.sql: events in flight, and the partitions being given up that drained. */
    public synchronized Map<String, Object> heartbeatParameters() {
        Integer[] drained = ownership.givingUp().stream()
                .filter(p -> !granted.contains(p) && !inFlight.inPartition(p)).toArray(Integer[]::new);
        return Map.of("inFlight", inFlight.count(), "drained", drained);
    }

    /** Partitions with a claim in progress or events in flight (kept on shutdown until their lease runs out). */
    public synchronized Integer[] busyPartitions() {
        Set<Integer> busy = new HashSet<>(granted);
        busy.addAll(inFlight.partitions());
        return busy.toArray(new Integer[0]);
    }

    /**
     * The relay is stopping: no claim is granted any more, none goes again. The claims in progress finish the sends
     * under way and mark what was acknowledged; what they have not sent is released untouched for the partition's next
     * owner (a stop takes one send, not a batch sent one by one). The heartbeat keeps their leases until they end.
     */
    public synchronized void stopGranting() {
        stopping = true;
        for (Claim claim : claims.values()) {
            if (claim.batch() != null) {
                claim.batch().stopSending();
            }
        }
    }
}
