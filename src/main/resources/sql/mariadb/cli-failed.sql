-- The operator's failed command, as sql/postgresql/cli-failed.sql describes it: FAILED rows oldest first (seq), of
-- every key (first parameter true) or of one key (aggregate_type, aggregate_id), at most a limit, each with the number
-- of all matching rows.
SELECT id, seq, aggregate_type, aggregate_id, event_type, attempts, created_at, next_attempt_at, last_error,
       count(*) OVER () AS total
  FROM {{outbox.table}}
 WHERE status = 'FAILED'
   AND (? OR (aggregate_type = ? AND aggregate_id = ?))
 ORDER BY seq
 LIMIT ?
