package io.outboxrelay.support;

import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static org.awaitility.Awaitility.await;

/**
 * Relay processes coming and going while they drain one outbox: every step one instance leaves (SIGTERM, or kill -9)
 * and a new one joins, keeping two or three alive, until nothing is PENDING. An instance leaves only while it owns
 * partitions with PENDING events (waited for, a few seconds at most): every fault meets work in progress, and each is
 * recorded with what the instance had. For a killed instance it measures how long its partitions stood still: from
 * the kill to the first event of one of them published by another instance.
 */
public final class Churn {

    /** What happened. */
    public record Result(int joined, int stopped, int killed, List<Fault> faults, List<Long> recoveryMillis,
            Duration drained) {
    }

    /** One instance leaving: how, the PENDING events and the partitions the instance owned then. */
    public record Fault(boolean kill, long pending, long ownedPartitions) {
    }

    private final TestDatabase db;
    private final Function<String, RelayProcess> start;
    private final Duration step;
    private final boolean kills;
    private final Deque<Instance> alive = new ArrayDeque<>();
    private final List<Long> recoveries = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final Map<Timestamp, Integer[]> pendingRecoveries = new HashMap<>();
    private int joined;
    private volatile int stopped;
    private volatile int killed;

    private record Instance(String id, RelayProcess process) {
    }

    /**
     * @param start starts a relay with the given instance id and waits until it runs
     * @param kills whether every other leave is a kill -9, from the second on (else every leave is a graceful stop)
     */
    public Churn(TestDatabase db, Function<String, RelayProcess> start, Duration step, boolean kills) {
        this.db = db;
        this.start = start;
        this.step = step;
        this.kills = kills;
    }

    /**
     * Starts three instances, then the writing ({@code startWriting}: the churn is what the writing meets, however
     * long the instances took to start on a busy machine), then churns while events are being written and until the
     * outbox is drained.
     */
    public Result run(Runnable startWriting, BooleanSupplier writing, Duration timeout) {
        long began = System.nanoTime();
        long deadline = began + timeout.toNanos();
        try {
            for (int i = 0; i < 3; i++) {
                join();
            }
            startWriting.run();
            int round = 0;
            while (writing.getAsBoolean() || pending() > 0) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not drained within " + timeout + ": " + pending() + " PENDING");
                }
                // the next change of instances is due after a step, or no longer at all once everything is drained
                long nextStep = System.nanoTime() + step.toNanos();
                await().atMost(step.plusSeconds(30)).pollInterval(Duration.ofMillis(200))
                        .until(() -> System.nanoTime() >= nextStep || !writing.getAsBoolean() && pending() == 0);
                measureRecoveries();
                if ((alive.size() >= 3 || alive.size() == 2 && round % 2 == 0) && hasWork(alive.peekFirst())) {
                    leave(kills && round % 2 == 1);
                }
                if (alive.size() < 3) {
                    join();
                }
                round++;
            }
            Duration drained = Duration.ofNanos(System.nanoTime() - began);
            // partitions of a late kill may recover after the drain ended: not measured
            return new Result(joined, stopped, killed, List.copyOf(faults), List.copyOf(recoveries), drained);
        } finally {
            alive.forEach(instance -> instance.process().close());
        }
    }

    /** Graceful stops so far (read by the writing, which goes on until the churn has met it). */
    public int stopped() {
        return stopped;
    }

    /** Kills so far. */
    public int killed() {
        return killed;
    }

    private void join() {
        joined++;
        String id = "churn-" + joined;
        alive.addLast(new Instance(id, start.apply(id)));
    }

    /** Whether events are PENDING and the instance owns partitions, waited for a few seconds (the next slice). */
    private boolean hasWork(Instance instance) {
        try {
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                    .until(() -> pending() > 0 && owned(instance).length > 0);
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            // drained: nothing for a fault to meet
            return false;
        }
    }

    /** The oldest instance leaves: a graceful stop, or a kill -9 that leaves its claims to their leases. */
    private void leave(boolean kill) {
        Instance leaving = alive.removeFirst();
        Integer[] partitions = owned(leaving);
        long pending = db.count("SELECT count(*) FROM outbox WHERE status = 'PENDING'");
        if (kill) {
            Timestamp at = (Timestamp) db.query("SELECT now() AS now").get(0).get("now");
            leaving.process().kill();
            killed++;
            if (partitions.length > 0) {
                pendingRecoveries.put(at, partitions);
            }
        } else {
            leaving.process().terminate();
            leaving.process().waitForExit(Duration.ofSeconds(60));
            stopped++;
        }
        faults.add(new Fault(kill, pending, partitions.length));
    }

    /** The instance's partitions (the relay's name in the table is the given id and a suffix of its own). */
    private Integer[] owned(Instance instance) {
        return db.query("SELECT partition_number FROM outbox_partitions WHERE owner LIKE ?", instance.id() + "-%")
                .stream().map(r -> (Integer) r.get("partition_number")).toArray(Integer[]::new);
    }

    /** A killed instance's partitions recovered when one of their events was published after the kill. */
    private void measureRecoveries() {
        pendingRecoveries.entrySet().removeIf(kill -> {
            // an event's partition is computed from its key (migration V9)
            Timestamp first = (Timestamp) db.query("SELECT min(published_at) AS first FROM outbox "
                    + "WHERE outbox_partition(aggregate_type, aggregate_id) = ANY(?) AND published_at > ?",
                    kill.getValue(), kill.getKey())
                    .get(0).get("first");
            if (first != null) {
                recoveries.add(first.getTime() - kill.getKey().getTime());
                return true;
            }
            return false;
        });
    }

    private long pending() {
        return db.count("SELECT count(*) FROM (SELECT 1 FROM outbox WHERE status = 'PENDING' LIMIT 1) p");
    }
}
