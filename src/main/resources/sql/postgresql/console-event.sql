-- One event for the console, whole: payload, headers, attempts, last_error, timestamps, and whether it holds its key
-- back (a row of <table>_held_keys names it while it is PENDING or FAILED).
SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.status, o.attempts, o.created_at,
       o.next_attempt_at, o.published_at, o.last_error,
       CAST(o.payload AS text) AS payload, CAST(o.headers AS text) AS headers,
       EXISTS (SELECT 1 FROM {{outbox.table}}_held_keys h WHERE h.held_by = o.id) AS holds_key
  FROM {{outbox.table}} o
 WHERE o.id = CAST(? AS uuid)
