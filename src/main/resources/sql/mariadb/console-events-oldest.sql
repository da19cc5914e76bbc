-- The console's list of PENDING events, oldest first (the order they are published in): a page keyset-paged by seq
-- (after: the last seq of the previous page, NULL for the first), never OFFSET.
SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.status, o.attempts, o.created_at,
       o.next_attempt_at, o.published_at, left(o.last_error, 300) AS last_error
  FROM {{outbox.table}} o
 WHERE {{sql:console-filter}}
   AND (? IS NULL OR o.seq > ?)
 ORDER BY o.seq
 LIMIT ?
