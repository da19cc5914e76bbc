-- The console's list of FAILED or PUBLISHED events, newest first: a page keyset-paged by seq (after: the last seq of
-- the previous page, NULL for the first), never OFFSET. No partial indexes on MariaDB: FAILED rows are found through
-- the (status, published_at) index and sorted (an index of their own would cost the relay a write on every mark).
SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.status, o.attempts, o.created_at,
       o.next_attempt_at, o.published_at, left(o.last_error, 300) AS last_error
  FROM {{outbox.table}} o
 WHERE {{sql:console-filter}}
   AND (? IS NULL OR o.seq < ?)
 ORDER BY o.seq DESC
 LIMIT ?
