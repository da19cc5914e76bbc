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
}
