package io.outboxrelay.claim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which of the free partitions the next claim reads: a different first partition each time, so that none waits behind
 * the others, and with a backlog the partitions whose last claim filled its share first, spread over the claims that
 * may run. Kept by {@link PartitionGrants}, which guards it: not thread-safe on its own.
 */
final class PartitionChoice {

    private final int concurrentClaims;
    /** The partitions whose last claim filled its share: a backlog, read first. */
    private final Set<Integer> filled = new HashSet<>();
    private int rotation;

    PartitionChoice(int concurrentClaims) {
        this.concurrentClaims = concurrentClaims;
    }

    /** Whether some partition's last claim filled its share. */
    boolean backlog() {
        return !filled.isEmpty();
    }

    /**
     * The partitions the next claim reads, at most {@code budget} of them (each is read at least one event).
     *
     * @param free   the partitions owned and not granted now (reordered here)
     * @param spread whether other claims may run beside this one and share the backlog with it
     */
    List<Integer> choose(List<Integer> free, boolean spread, int budget) {
        Collections.sort(free);
        Collections.rotate(free, -(rotation++ % free.size()));
        List<Integer> chosen = free;
        if (spread && backlog()) {
            // a backlog: the partitions that filled their share are spread over the claims that may run, and the last
            // one takes whatever is free, so no partition waits while others are busy. Without a backlog one claim
            // reads every free partition: it is freed again as soon as it has read, and claims that each found an
            // event or two cost a claim's CPU per event (measured at a steady rate)
            List<Integer> hot = new ArrayList<>(free);
            hot.retainAll(filled);
            if (!hot.isEmpty()) {
                int share = Math.max(1, (filled.size() + concurrentClaims - 1) / concurrentClaims);
                chosen = hot.subList(0, Math.min(share, hot.size()));
            }
        }
        return chosen.subList(0, Math.min(chosen.size(), budget));
    }

    /** A claim of this partition ended: whether it filled its share (then the partition goes first next time). */
    void claimEnded(int partition, boolean filledItsShare) {
        if (filledItsShare) {
            filled.add(partition);
        } else {
            filled.remove(partition);
        }
    }
}
