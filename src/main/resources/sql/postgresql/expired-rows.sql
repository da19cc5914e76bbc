-- The retention janitor's batch of expired rows, spliced into delete-expired.sql and archive-expired.sql: the oldest
-- PUBLISHED rows past outbox.retention, found through the published_at index (migration V3) by their physical
-- address (ctid), so a batch reads about as many index entries and rows as it takes, however large the table. Only
-- under the table's janitor lock (a transaction-level advisory lock, tried, never waited for: a pass that does not get
-- it takes nothing and ends, and the pass holding it goes on alone), rows FOR UPDATE SKIP LOCKED: a batch never waits
-- on rows another statement holds, nor takes them twice.
SELECT ctid
  FROM {{outbox.table}}
 WHERE (SELECT pg_try_advisory_xact_lock(hashtext('{{outbox.table}}_janitor')))
   AND status = 'PUBLISHED'
   AND published_at < now() - CAST(:#${bean:relaySettings.retentionInterval} AS interval)
 ORDER BY published_at
 LIMIT :#${bean:relaySettings.retentionBatchSize}
   FOR UPDATE SKIP LOCKED
