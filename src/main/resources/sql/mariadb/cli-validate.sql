-- The operator's validate command: every PENDING row, in seq order, with what its schema is checked against
-- (aggregate_type, event_type, the payload as written). Read in pages (fetch size); nothing is written.
SELECT id, seq, aggregate_type, aggregate_id, event_type, payload
  FROM {{outbox.table}}
 WHERE status = 'PENDING'
 ORDER BY seq
