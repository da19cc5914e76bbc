package io.outboxrelay.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a consumer of the topic saw, against the table: rows never delivered, deliveries beyond the first, and keys
 * whose first deliveries were not in seq order.
 */
public record DeliveryReport(int rows, int records, int missing, int duplicates, List<String> orderViolations) {

    public static DeliveryReport of(TestDatabase db, String topic, Duration timeout) {
        return of(db, SharedKafka.broker().bootstrapServers(), topic, timeout);
    }

    public static DeliveryReport of(TestDatabase db, String bootstrapServers, String topic, Duration timeout) {
        int rows = (int) db.count("SELECT count(*) FROM outbox");
        List<Delivery> deliveries = SharedKafka.read(bootstrapServers, topic, rows, timeout).stream()
                .map(record -> new Delivery(SharedKafka.headers(record).get("ce_id"), record.key()))
                .toList();
        return of(db, deliveries);
    }

    /** One message as a consumer got it: its ce_id and its key (Kafka's record key, or ce_subject). */
    public record Delivery(String id, String key) {
    }

    /** @param deliveries in the order a consumer got them (for Kafka: in each topic partition's order) */
    public static DeliveryReport of(TestDatabase db, List<Delivery> deliveries) {
        Map<String, Long> seqById = new HashMap<>();
        db.query("SELECT " + db.text("id") + " AS id, seq FROM outbox")
                .forEach(r -> seqById.put((String) r.get("id"), (Long) r.get("seq")));

        Set<String> delivered = new HashSet<>();
        Map<String, Long> lastFirstDeliverySeq = new HashMap<>();
        List<String> violations = new ArrayList<>();
        int duplicates = 0;
        for (Delivery delivery : deliveries) {
            if (!delivered.add(delivery.id())) {
                duplicates++;
                continue;
            }
            Long seq = seqById.get(delivery.id());
            Long previous = lastFirstDeliverySeq.put(delivery.key(), seq);
            if (seq != null && previous != null && previous > seq) {
                violations.add(delivery.key() + ": seq " + seq + " first delivered after seq " + previous);
            }
        }
        int missing = (int) seqById.keySet().stream().filter(id -> !delivered.contains(id)).count();
        return new DeliveryReport(seqById.size(), deliveries.size(), missing, duplicates, violations);
    }
}
