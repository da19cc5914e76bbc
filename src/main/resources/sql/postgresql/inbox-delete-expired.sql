-- Deletes one bounded batch of inbox rows older than inbox.retention, oldest first (through the received_at index),
-- by physical address, one pass at a time under the inbox's janitor lock, like the outbox's retention
-- (delete-expired.sql). A message redelivered after its row is gone would be applied again: the retention must
-- outlast every redelivery (the broker's retention, replays).
DELETE FROM {{inbox.table}}
 WHERE ctid = ANY(ARRAY(
         SELECT ctid
           FROM {{inbox.table}}
          WHERE (SELECT pg_try_advisory_xact_lock(hashtext('{{inbox.table}}_janitor')))
            AND received_at < now() - CAST(:#${bean:inboxSettings.retentionInterval} AS interval)
          ORDER BY received_at
          LIMIT :#${bean:relaySettings.retentionBatchSize}
            FOR UPDATE SKIP LOCKED))
