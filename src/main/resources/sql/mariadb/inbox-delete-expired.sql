-- Deletes one bounded batch of inbox rows older than inbox.retention, oldest first (through the received_at index), as
-- sql/postgresql/inbox-delete-expired.sql describes it; the duration through the outbox's {{outbox.table}}_micros
-- (migration V1). No janitor lock on MariaDB: two relays' batches wait for each other's row locks, and never delete
-- a row twice.
DELETE FROM {{inbox.table}}
 WHERE received_at < now(6) - INTERVAL {{outbox.table}}_micros(:#${bean:inboxSettings.retentionInterval}) MICROSECOND
 ORDER BY received_at
 LIMIT :#${bean:relaySettings.retentionBatchSize}
