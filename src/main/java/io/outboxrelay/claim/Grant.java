package io.outboxrelay.claim;

import java.util.List;
import java.util.Map;

/**
 * What one claim may read: these partitions, at most perPartition events of each, skipping the events of earlier
 * claims still in flight there. Numbered: two claims are two grants, whatever they read.
 */
public record Grant(long number, List<Integer> partitions, int perPartition, List<String> inFlight) {

    /** The parameters of sql/claim.sql. */
    public Map<String, Object> parameters() {
        return Map.of("partitions", partitions.toArray(new Integer[0]), "perPartition", perPartition,
                "inFlight", inFlight.toArray(new String[0]));
    }
}
