-- Replays FAILED rows (the operator's replay): by id (parameters 1-2: a uuid[]), by key (3-5: aggregate type, type,
-- aggregate id), or, with both selectors NULL, every FAILED row (--all).
-- Only FAILED rows, never PENDING or PUBLISHED ones, become PENDING with a fresh attempt count, due now, as the contract's replay statement does; last_error is kept until the event is published. One transaction
-- with cli-wake-relays.sql.
UPDATE {{outbox.table}}
   SET status = 'PENDING',
       attempts = 0,
       next_attempt_at = now()
 WHERE status = 'FAILED'
   AND (CAST(? AS uuid[]) IS NULL OR id = ANY(CAST(? AS uuid[])))
   AND (CAST(? AS text) IS NULL OR (aggregate_type = ? AND aggregate_id = ?))
RETURNING id, seq, aggregate_type, aggregate_id, event_type
