package io.outboxrelay.claim;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions this instance owns, as the heartbeat route last heard (sql/heartbeat.sql): each with its lease
 * confirmed until when, and whether it is being given up (rebalancing). A partition may be granted to a claim only
 * while its lease, as last confirmed, has more than a third of outbox.lease left: when the database stops answering the
 * heartbeat, claiming stops well before another instance may take the partition. The claims' scheduling
 * ({@link PartitionGrants}) asks it what may be granted; the heartbeat route's thread is the only one that changes it.
 */
public class PartitionOwnership {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionOwnership.class);

    /** A partition this instance owns. */
    private record Owned(int number, long confirmedUntilNanos, boolean givingUp) {
    }

    /** Told about every heartbeat's outcome (metrics). */
    public interface OwnershipListener {
        void owned(int partitions, int taken, int givenUp, int liveInstances);
    }

    private final long leaseNanos;
    private final OwnershipListener listener;
    private volatile Map<Integer, Owned> owned = Map.of();
    private volatile long beatStartedNanos;
    private boolean heartbeatFailing;

    public PartitionOwnership(Duration lease, OwnershipListener listener) {
        this.leaseNanos = lease.toNanos();
        this.listener = listener;
    }

    /** The heartbeat route's first step: the leases its answer confirms run from now. */
    public void startHeartbeat() {
        beatStartedNanos = System.nanoTime();
    }

    /**
     * Takes in the heartbeat's answer: the partitions owned now, confirmed for outbox.lease from when the heartbeat
     * started.
     *
     * @return true when partitions were taken or given up: claims should look again
     */
    public boolean heartbeat(List<Map<String, Object>> rows) {
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
        Map<Integer, Owned> before = owned;
        int givenUp = (int) before.keySet().stream().filter(p -> !now.containsKey(p)).count();
        owned = Map.copyOf(now);
        if (taken > 0 || givenUp > 0) {
            LOG.info("Partitions: {} owned ({} taken, {} given up), {} live instances", now.size(), taken, givenUp,
                    instances);
        }
        listener.owned(now.size(), taken, givenUp, instances);
        return taken > 0 || givenUp > 0;
    }

    /** One line when the heartbeat starts failing, one when it answers again. */
    public void heartbeatFailed(Exception cause) {
        if (!heartbeatFailing) {
            LOG.warn("Heartbeat failed; this instance stops claiming when its partitions' leases are no longer "
                    + "confirmed: {}", cause.getMessage());
            heartbeatFailing = true;
        }
    }

    /** The partitions a claim may be granted at {@code nowNanos}: owned, kept, and confirmed for long enough. */
    List<Integer> claimable(long nowNanos) {
        return owned.values().stream()
                .filter(p -> !p.givingUp() && p.confirmedUntilNanos() - nowNanos > leaseNanos / 3)
                .map(Owned::number).toList();
    }

    /** The partitions being given up (each left by the heartbeat once no claim of it is in progress). */
    List<Integer> givingUp() {
        return owned.values().stream().filter(Owned::givingUp).map(Owned::number).toList();
    }

    /** Stopped: nothing is owned any more. */
    public void stop() {
        owned = Map.of();
    }
}
