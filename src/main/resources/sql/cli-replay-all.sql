-- Replays every FAILED row (the operator's replay --all):
-- only FAILED rows, never PENDING or PUBLISHED ones, become PENDING with a fresh attempt count, due now and without a
-- lease, as the contract's replay statement does; last_error is kept until the event is published. One transaction
-- with cli-wake-relays.sql.
UPDATE {{outbox.table}}
   SET status = 'PENDING',
       attempts = 0,
       next_attempt_at = now(),
       lease_owner = NULL,
       lease_until = NULL
 WHERE status = 'FAILED'
RETURNING id, seq, aggregate_type, aggregate_id, event_type
