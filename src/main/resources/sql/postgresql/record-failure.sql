-- Records one failed attempt (route outbox-record-failure, from the onException blocks of failure.camel.yaml), after
-- the in-process redeliveries were exhausted: count it, keep the error, back off exponentially
-- (outbox.backoff.initial doubling up to outbox.backoff.max). At outbox.max-attempts, or for a row that can never be
-- published, the event becomes FAILED. Either way the event now holds its key back (held_keys): its later events are
-- not claimed while it is PENDING, or FAILED with outbox.failed-blocks-key=true. Returns the row's status; no row
-- when the failure was not written (the event is no longer PENDING, or no longer this instance's to write).
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
       -- fenced: only while the event's partition is still this instance's, under a lease not run out (otherwise
       -- another instance may be sending the event now, and this failure is not its)
       AND EXISTS (SELECT 1
                     FROM {{outbox.table}}_partitions p
                    WHERE p.partition_number = {{outbox.table}}_partition(aggregate_type, aggregate_id)
                      AND p.owner = CAST(:#${bean:relaySettings.instanceId} AS text)
                      AND p.lease_until > now())
    RETURNING id, seq, {{outbox.table}}_partition(aggregate_type, aggregate_id) AS partition_number, aggregate_type, aggregate_id, status
), held AS (
    INSERT INTO {{outbox.table}}_held_keys (held_by, held_by_seq, partition_number, aggregate_type, aggregate_id)
    SELECT id, seq, partition_number, aggregate_type, aggregate_id FROM failed
    ON CONFLICT (held_by) DO NOTHING
)
SELECT status FROM failed
