-- Deletes one bounded batch of inbox rows older than inbox.retention, oldest first, as
-- sql/postgresql/inbox-delete-expired.sql describes it (the inbox's own janitor lock is not taken on MariaDB yet).
DELETE FROM {{inbox.table}}
 WHERE received_at < now(6) - INTERVAL {{outbox.table}}_micros(:#${bean:inboxSettings.retentionInterval}) MICROSECOND
 ORDER BY received_at
 LIMIT :#${bean:relaySettings.retentionBatchSize}
