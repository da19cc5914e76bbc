-- One round trip per claim (claim.OutboxConsumer): marks the events the broker acknowledged since the last one, then
-- claims the next events of the partitions this instance owns, leased to it.
--   1: uuid[]    events acknowledged since the last claim: PUBLISHED
--   2: integer[] partitions to claim from (this instance's, not being given up)
--   3: bigint[]  per partition, claim only after this seq (the instance knows what it claimed already; 0 rescans)
--   4: integer[] per partition, how many events at most
-- A partition is read only while this instance owns it under a live lease, in seq order through the claim index;
-- an event is skipped while it is in flight (leased to this instance, or to a previous owner of the partition whose
-- lease has not run out), not due (backoff), or behind a failed event of its key that still holds the key
-- (held_keys: PENDING, or FAILED with outbox.failed-blocks-key=true). Nothing else is searched: the partition's
-- single owner is what keeps a key's events in order.
WITH marked AS (
    UPDATE {{outbox.table}}
       SET status = 'PUBLISHED',
           published_at = now(),
           last_error = NULL,
           lease_owner = NULL,
           lease_until = NULL
     WHERE id = ANY(CAST(? AS uuid[]))
       AND status = 'PENDING'
    RETURNING id
), owned AS (
    SELECT w.partition_number, w.after_seq, w.take, p.lease_until
      FROM unnest(CAST(? AS integer[]), CAST(? AS bigint[]), CAST(? AS integer[]))
           AS w (partition_number, after_seq, take)
      JOIN {{outbox.table}}_partitions p ON p.partition_number = w.partition_number
     WHERE p.owner = '{{outbox.instance-id}}'
       AND p.lease_until > now()
), claimable AS (
    SELECT c.id, o.lease_until
      FROM owned o
     CROSS JOIN LATERAL (
             SELECT e.id
               FROM {{outbox.table}} e
              WHERE e.partition_number = o.partition_number
                AND e.status = 'PENDING'
                AND e.seq > o.after_seq
                AND e.next_attempt_at <= now()
                AND (e.lease_owner IS NULL
                     OR (e.lease_owner <> '{{outbox.instance-id}}' AND e.lease_until < now()))
                AND NOT EXISTS (
                      SELECT 1
                        FROM {{outbox.table}}_held_keys h
                        JOIN {{outbox.table}} b ON b.id = h.held_by
                       WHERE h.partition_number = e.partition_number
                         AND h.aggregate_type = e.aggregate_type
                         AND h.aggregate_id = e.aggregate_id
                         AND h.held_by_seq < e.seq
                         AND (b.status = 'PENDING' OR (b.status = 'FAILED' AND {{outbox.failed-blocks-key}}))
                         -- published by this very statement (its snapshot still shows it PENDING)
                         AND NOT EXISTS (SELECT 1 FROM marked m WHERE m.id = b.id))
              ORDER BY e.seq
              LIMIT o.take) c
)
-- An event's lease ends with its partition's as it stands now (it is not renewed: its owner keeps it while it keeps
-- the partition): when a dead instance's partitions move, its events are claimable too.
UPDATE {{outbox.table}} t
   SET lease_owner = '{{outbox.instance-id}}',
       lease_until = c.lease_until
  FROM claimable c
 WHERE t.id = c.id
RETURNING t.id, t.seq, t.partition_number, t.aggregate_type, t.aggregate_id, t.event_type,
          CAST(t.payload AS text) AS payload, CAST(t.headers AS text) AS headers, t.created_at, t.attempts,
          -- whether its later events wait for it (it failed before): once it is published they are claimable
          EXISTS (SELECT 1 FROM {{outbox.table}}_held_keys h WHERE h.held_by = t.id) AS holds_key
