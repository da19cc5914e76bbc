-- What the backlog gauges show: pending and failed rows, and the age of the oldest pending one.
SELECT count(*) FILTER (WHERE status = 'PENDING') AS pending,
       count(*) FILTER (WHERE status = 'FAILED') AS failed,
       COALESCE(EXTRACT(EPOCH FROM now() - min(created_at) FILTER (WHERE status = 'PENDING')), 0) AS oldest_pending_age_seconds
  FROM {{outbox.table}}
 WHERE status <> 'PUBLISHED'
