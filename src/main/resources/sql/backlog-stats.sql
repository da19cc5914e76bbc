-- What the backlog gauges show: pending and failed rows, the age of the oldest pending one, and how many keys are
-- held back (an event being retried, or FAILED when outbox.failed-blocks-key=true, with later events waiting).
SELECT count(*) FILTER (WHERE o.status = 'PENDING') AS pending,
       count(*) FILTER (WHERE o.status = 'FAILED') AS failed,
       COALESCE(EXTRACT(EPOCH FROM now() - min(o.created_at) FILTER (WHERE o.status = 'PENDING')), 0)
           AS oldest_pending_age_seconds,
       count(DISTINCT (o.aggregate_type, o.aggregate_id)) FILTER (
           WHERE ((o.status = 'PENDING' AND o.attempts > 0) OR (o.status = 'FAILED' AND {{outbox.failed-blocks-key}}))
             AND EXISTS (SELECT 1
                           FROM {{outbox.table}} l
                          WHERE l.aggregate_type = o.aggregate_type
                            AND l.aggregate_id = o.aggregate_id
                            AND l.seq > o.seq
                            AND l.status = 'PENDING')) AS keys_held_back
  FROM {{outbox.table}} o
 WHERE o.status <> 'PUBLISHED'
