-- Records one failed attempt (route outbox-record-failure, from the onException blocks of failure.camel.yaml), after
-- the in-process redeliveries were exhausted: count it, keep the error, back off exponentially
-- (outbox.backoff.initial doubling up to outbox.backoff.max). At outbox.max-attempts, or for a row that can never be
-- published, the event becomes FAILED. Either way the event now holds its key back (held_keys): its later events are
-- not claimed while it is PENDING, or FAILED with outbox.failed-blocks-key=true. Returns the row's status.
WITH failed AS (
    UPDATE {{outbox.table}}
       SET attempts = attempts + 1,
           last_error = CAST(:#outboxError AS text),
           status = CASE
                      WHEN CAST(:#outboxUnpublishable AS boolean)
                           OR attempts + 1 >= CAST(:#${bean:relaySettings.maxAttempts} AS integer)
                      THEN 'FAILED' ELSE 'PENDING'
                    END,
           next_attempt_at = now() + LEAST(CAST(:#${bean:relaySettings.backoffMaxInterval} AS interval),
                                           CAST(:#${bean:relaySettings.backoffInitialInterval} AS interval)
                                               * power(2, LEAST(attempts, 30)))
     WHERE id = CAST(:#${exchangeProperty.outboxEventId} AS uuid)
       AND status = 'PENDING'
    RETURNING id, seq, {{outbox.table}}_partition(aggregate_type, aggregate_id) AS partition_number, aggregate_type, aggregate_id, status
), held AS (
    INSERT INTO {{outbox.table}}_held_keys (held_by, held_by_seq, partition_number, aggregate_type, aggregate_id)
    SELECT id, seq, partition_number, aggregate_type, aggregate_id FROM failed
    ON CONFLICT (held_by) DO NOTHING
)
SELECT status FROM failed
