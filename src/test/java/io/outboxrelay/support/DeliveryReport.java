package io.outboxrelay.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What a consumer of the topic saw, against the table: rows never delivered, deliveries beyond the first, and keys
 * whose first deliveries were not in seq order.
 */
public record DeliveryReport(int rows, int records, int missing, int duplicates, List<String> orderViolations) {

    public static DeliveryReport of(TestDatabase db, String topic, Duration timeout) {
        return of(db, SharedKafka.broker().bootstrapServers(), topic, timeout);
    }

    public static DeliveryReport of(TestDatabase db, String bootstrapServers, String topic, Duration timeout) {
        Map<String, Long> seqById = new HashMap<>();
        db.query("SELECT id::text AS id, seq FROM outbox").forEach(r -> seqById.put((String) r.get("id"), (Long) r.get("seq")));
        List<ConsumerRecord<String, byte[]>> records = SharedKafka.read(bootstrapServers, topic, seqById.size(), timeout);

        Set<String> delivered = new HashSet<>();
        Map<String, Long> lastFirstDeliverySeq = new HashMap<>();
        List<String> violations = new ArrayList<>();
        int duplicates = 0;
        for (ConsumerRecord<String, byte[]> record : records) {
            String id = SharedKafka.headers(record).get("ce_id");
            if (!delivered.add(id)) {
                duplicates++;
                continue;
            }
            Long seq = seqById.get(id);
            Long previous = lastFirstDeliverySeq.put(record.key(), seq);
            if (seq != null && previous != null && previous > seq) {
                violations.add(record.key() + ": seq " + seq + " first delivered after seq " + previous);
            }
        }
        int missing = (int) seqById.keySet().stream().filter(id -> !delivered.contains(id)).count();
        return new DeliveryReport(seqById.size(), records.size(), missing, duplicates, violations);
    }
}
