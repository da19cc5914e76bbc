package io.outboxrelay.claim;

import java.util.List;
import java.util.Map;

/**
 * What one claim may read: these partitions, at most perPartition events of each, skipping the events of earlier
 * claims still in flight there (inFlight, each in the partition at the same index of inFlightPartitions). Numbered:
 * two claims are two grants, whatever they read.
 */
public record Grant(long number, List<Integer> partitions, int perPartition, List<String> inFlight,
        List<Integer> inFlightPartitions) {

    /**
     * The parameters of sql/claim.sql. inFlightByPartition, pairs of partition and id, is for MariaDB's claim, which
     * gives each partition's read only its own events in flight (PostgreSQL's ignores it).
     */
    public Map<String, Object> parameters() {
        Object[][] inFlightByPartition = new Object[inFlight.size()][];
        for (int i = 0; i < inFlightByPartition.length; i++) {
            inFlightByPartition[i] = new Object[] {inFlightPartitions.get(i), inFlight.get(i)};
        }
        return Map.of("partitions", partitions.toArray(new Integer[0]), "perPartition", perPartition,
                "inFlight", inFlight.toArray(new String[0]), "inFlightByPartition", inFlightByPartition);
    }

    /**
     * What started a claim, asking for a grant: the body of the claim route's wake-ups, set as the enum itself
     * ({@code ${type:...Grant$Wake.NEWS}}), since Camel converts a String to an enum parameter through a type-converter
     * lookup that misses, and that miss was a third of the claim threads' samples at a steady rate (JFR).
     */
    public enum Wake {
        /** The poll timer's safety net: one claim reads every free partition a little. */
        POLL,
        /** Something arrived (an insert, a replay, partitions taken over): the claims that may run share them. */
        NEWS,
        /** A claim ended with more to do (its share filled, or news it could not take came meanwhile). */
        AGAIN
    }
}
