-- Records one failed attempt, after the in-process redeliveries were exhausted: count it, keep the error, back off
-- exponentially (outbox.backoff.initial doubling up to outbox.backoff.max) and release the lease. At
-- outbox.max-attempts, or for a row that can never be published, the event becomes FAILED.
UPDATE {{outbox.table}}
   SET attempts = attempts + 1,
       last_error = :#${exchangeProperty.outboxError},
       status = CASE
                  WHEN :#${exchangeProperty.outboxUnpublishable} OR attempts + 1 >= {{outbox.max-attempts}}
                  THEN 'FAILED' ELSE 'PENDING'
                END,
       next_attempt_at = now() + LEAST(CAST('{{outbox.backoff.max}}' AS interval),
                                       CAST('{{outbox.backoff.initial}}' AS interval) * power(2, LEAST(attempts, 30))),
       lease_owner = NULL,
       lease_until = NULL
 WHERE id = CAST(:#${exchangeProperty.outboxId} AS uuid)
   AND status = 'PENDING'
RETURNING status
