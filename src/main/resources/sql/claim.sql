-- Claims a batch, leased to this instance: the oldest claimable "head" events, one per key, each followed by the next
-- pending events of its key (at most outbox.claim.run-length per key, outbox.batch-size in all).
-- A head is PENDING, due (next_attempt_at), not under a live lease, and has no unfinished earlier event of its key
-- (PENDING, or FAILED when outbox.failed-blocks-key=true). Heads are locked FOR UPDATE SKIP LOCKED; a key's later
-- events are claimable only through its head, so no two instances ever hold events of one key, and an event is
-- claimed only after every earlier event of its key was acknowledged or is in the same claim, in seq order.
-- The lease is what protects the claim once this autocommit statement ends; an expired lease is claimable again.
-- The head search looks no further than the oldest claimable events (4 x outbox.batch-size): while another batch
-- holds most keys, their later events would otherwise be walked one by one to the end of the backlog. When none of
-- those oldest events is a head (a long run behind an event in backoff, or FAILED with outbox.failed-blocks-key),
-- the search is unbounded, so such a key never stalls the others.
WITH oldest AS (
    SELECT o.seq, o.aggregate_type, o.aggregate_id
      FROM {{outbox.table}} o
     WHERE o.status = 'PENDING'
       AND o.next_attempt_at <= now()
       AND (o.lease_until IS NULL OR o.lease_until < now())
     ORDER BY o.seq
     LIMIT 4 * {{outbox.batch-size}}
), search_bound AS (
    SELECT CASE WHEN EXISTS (
                    SELECT 1
                      FROM oldest w
                     WHERE NOT EXISTS (
                             SELECT 1
                               FROM {{outbox.table}} e
                              WHERE e.aggregate_type = w.aggregate_type
                                AND e.aggregate_id = w.aggregate_id
                                AND e.seq < w.seq
                                AND e.status <> 'PUBLISHED'
                                AND (e.status = 'PENDING' OR {{outbox.failed-blocks-key}})))
                THEN (SELECT max(seq) FROM oldest)
                ELSE 9223372036854775807 END AS seq
), heads AS (
    SELECT o.seq, o.aggregate_type, o.aggregate_id
      FROM {{outbox.table}} o
     WHERE o.status = 'PENDING'
       AND o.next_attempt_at <= now()
       AND (o.lease_until IS NULL OR o.lease_until < now())
       AND o.seq <= (SELECT seq FROM search_bound)
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
), run_length AS (
    -- the batch shared out among the heads found: with many keys each brings a short run, so no head reads events
    -- that the cut below would throw away; with few keys each brings up to outbox.claim.run-length
    SELECT LEAST({{outbox.claim.run-length}},
                 CAST(CEIL({{outbox.batch-size}} / CAST(GREATEST(count(*), 1) AS numeric)) AS integer)) AS events
      FROM heads
), runs AS (
    SELECT r.id
      FROM heads h
     CROSS JOIN LATERAL (
             SELECT f.id, f.seq, row_number() OVER (ORDER BY f.seq) AS position
               FROM {{outbox.table}} f
              WHERE f.aggregate_type = h.aggregate_type
                AND f.aggregate_id = h.aggregate_id
                AND f.seq >= h.seq
                AND f.status = 'PENDING'
              ORDER BY f.seq
              LIMIT (SELECT events FROM run_length)) r
     -- cut whole rounds first, so every key keeps a contiguous run from its head
     ORDER BY r.position, r.seq
     LIMIT {{outbox.batch-size}}
)
UPDATE {{outbox.table}} t
   SET lease_owner = '{{outbox.instance-id}}',
       lease_until = now() + CAST('{{outbox.lease}}' AS interval)
  FROM runs r
 WHERE t.id = r.id
RETURNING t.id, t.seq, t.aggregate_type, t.aggregate_id, t.event_type,
          CAST(t.payload AS text) AS payload, CAST(t.headers AS text) AS headers, t.created_at, t.attempts
