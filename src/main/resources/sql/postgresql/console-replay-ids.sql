-- The events a replay by id from the console names: each one's status and seq (an id not returned does not exist).
SELECT id, seq, status
  FROM {{outbox.table}}
 WHERE id = ANY(CAST(? AS uuid[]))
