-- The console's summary per destination (aggregate type), as sql/postgresql/console-destinations.sql describes it:
-- PENDING rows, the age of the oldest, FAILED rows. Reads only unfinished rows, never the PUBLISHED ones.
SELECT o.aggregate_type,
       sum(o.status = 'PENDING') AS pending,
       coalesce(timestampdiff(MICROSECOND, min(IF(o.status = 'PENDING', o.created_at, NULL)), now(6)) / 1000000, 0)
           AS oldest_pending_age_seconds,
       sum(o.status = 'FAILED') AS failed
  FROM {{outbox.table}} o
 WHERE o.status IN ('PENDING', 'FAILED')
 GROUP BY o.aggregate_type
 ORDER BY o.aggregate_type
