-- Claims a batch: the oldest claimable events, one per key, leased to this instance.
-- A row is claimable when it is PENDING, due (next_attempt_at), not leased by a live relay, and no earlier event of
-- its key is unfinished (PENDING, or FAILED when outbox.failed-blocks-key=true). That keeps per-key order with any
-- number of instances: an event is only ever claimed after every earlier event of its key was acknowledged.
-- The lease is what protects the claim once this autocommit statement ends; an expired lease is claimable again.
WITH claimable AS (
    SELECT o.id
      FROM {{outbox.table}} o
     WHERE o.status = 'PENDING'
       AND o.next_attempt_at <= now()
       AND (o.lease_until IS NULL OR o.lease_until < now())
       AND NOT EXISTS (
             SELECT 1
               FROM {{outbox.table}} e
              WHERE e.aggregate_type = o.aggregate_type
                AND e.aggregate_id = o.aggregate_id
                AND e.seq < o.seq
                AND e.status <> 'PUBLISHED'
                AND (e.status = 'PENDING' OR {{outbox.failed-blocks-key}}))
     ORDER BY o.seq
     LIMIT {{outbox.batch-size}}
       FOR UPDATE SKIP LOCKED
)
UPDATE {{outbox.table}} t
   SET lease_owner = '{{outbox.instance-id}}',
       lease_until = now() + CAST('{{outbox.lease}}' AS interval)
  FROM claimable c
 WHERE t.id = c.id
RETURNING t.id, t.seq, t.aggregate_type, t.aggregate_id, t.event_type,
          CAST(t.payload AS text) AS payload, CAST(t.headers AS text) AS headers, t.created_at, t.attempts
