-- Records one failed attempt (failure.FailureBookkeeping), after the publish route's in-process redeliveries were
-- exhausted: count it, keep the error, back off
-- exponentially (outbox.backoff.initial doubling up to outbox.backoff.max) and release the lease. At
-- outbox.max-attempts, or for a row that can never be published, the event becomes FAILED. Either way the event now
-- holds its key back (held_keys): its later events are not claimed while it is PENDING, or FAILED with
-- outbox.failed-blocks-key=true.   1: text the error   2: boolean whether it can never be published   3: uuid the event
WITH failed AS (
    UPDATE {{outbox.table}}
       SET attempts = attempts + 1,
           last_error = CAST(? AS text),
           status = CASE
                      WHEN CAST(? AS boolean) OR attempts + 1 >= {{outbox.max-attempts}}
                      THEN 'FAILED' ELSE 'PENDING'
                    END,
           next_attempt_at = now() + LEAST(CAST('{{outbox.backoff.max}}' AS interval),
                                           CAST('{{outbox.backoff.initial}}' AS interval) * power(2, LEAST(attempts, 30))),
           lease_owner = NULL,
           lease_until = NULL
     WHERE id = CAST(? AS uuid)
       AND status = 'PENDING'
    RETURNING id, seq, partition_number, aggregate_type, aggregate_id, status
), held AS (
    INSERT INTO {{outbox.table}}_held_keys (held_by, held_by_seq, partition_number, aggregate_type, aggregate_id)
    SELECT id, seq, partition_number, aggregate_type, aggregate_id FROM failed
    ON CONFLICT (held_by) DO NOTHING
)
SELECT status FROM failed
