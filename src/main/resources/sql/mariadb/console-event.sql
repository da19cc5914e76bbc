-- One event for the console, whole, as sql/postgresql/console-event.sql describes it: payload and headers as written,
-- and whether it holds its key back.
SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.status, o.attempts, o.created_at,
       o.next_attempt_at, o.published_at, o.last_error, o.payload, o.headers,
       EXISTS (SELECT 1 FROM {{outbox.table}}_held_keys h WHERE h.held_by = o.id) AS holds_key
  FROM {{outbox.table}} o
 WHERE o.id = ?
