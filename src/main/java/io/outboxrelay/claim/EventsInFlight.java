package io.outboxrelay.claim;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.outboxrelay.event.OutboxEvent;

/**
 * The events this instance's claims have read and not yet settled (acknowledged and marked, or failed), by partition,
 * with their keys, and the keys whose events a claim skipped because they were in flight. Kept by
 * {@link PartitionGrants}, which guards it: not thread-safe on its own.
 */
final class EventsInFlight {

    /** Per partition: event id to key. */
    private final Map<Integer, Map<String, String>> byPartition = new HashMap<>();
    private final Map<String, Integer> keys = new HashMap<>();
    private final Set<String> waitingKeys = new HashSet<>();
    private int count;

    int count() {
        return count;
    }

    boolean inPartition(int partition) {
        return byPartition.containsKey(partition);
    }

    Set<Integer> partitions() {
        return byPartition.keySet();
    }

    boolean hasKey(String key) {
        return keys.containsKey(key);
    }

    /** Adds the ids in flight in these partitions, each with its partition (index for index), and their keys. */
    void collect(Collection<Integer> partitions, Collection<String> ids, Collection<Integer> idPartitions,
            Set<String> keysOut) {
        for (Integer p : partitions) {
            Map<String, String> events = byPartition.getOrDefault(p, Map.of());
            ids.addAll(events.keySet());
            idPartitions.addAll(Collections.nCopies(events.size(), p));
            keysOut.addAll(events.values());
        }
    }

    /** A claim skipped an event of this key, in flight in another claim: claimed again when that one ends. */
    void waitFor(String key) {
        waitingKeys.add(key);
    }

    void add(List<OutboxEvent> events) {
        for (OutboxEvent event : events) {
            byPartition.computeIfAbsent(event.partition(), p -> new HashMap<>()).put(event.id(), event.key());
            keys.merge(event.key(), 1, Integer::sum);
        }
        count += events.size();
    }

    /** @return true when this was its key's last event in flight and other claims skipped events of the key */
    boolean remove(OutboxEvent event) {
        Map<String, String> ids = byPartition.get(event.partition());
        if (ids != null && ids.remove(event.id()) != null) {
            count--;
            keys.computeIfPresent(event.key(), (k, n) -> n == 1 ? null : n - 1);
            if (ids.isEmpty()) {
                byPartition.remove(event.partition());
            }
        }
        return !keys.containsKey(event.key()) && waitingKeys.remove(event.key());
    }
}
