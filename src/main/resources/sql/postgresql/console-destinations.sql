-- The console's summary per destination (aggregate type): PENDING rows, the age of the oldest, FAILED rows. Reads
-- only unfinished rows (the partial indexes of PENDING and FAILED rows), never the PUBLISHED ones.
SELECT o.aggregate_type,
       count(*) FILTER (WHERE o.status = 'PENDING') AS pending,
       COALESCE(EXTRACT(EPOCH FROM now() - min(o.created_at) FILTER (WHERE o.status = 'PENDING')), 0)
           AS oldest_pending_age_seconds,
       count(*) FILTER (WHERE o.status = 'FAILED') AS failed
  FROM {{outbox.table}} o
 WHERE o.status IN ('PENDING', 'FAILED')
 GROUP BY o.aggregate_type
 ORDER BY o.aggregate_type
