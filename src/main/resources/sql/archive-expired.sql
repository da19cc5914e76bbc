-- Archive mode's retention batch: moves one bounded batch of published rows older than outbox.retention into the
-- archive table, found as delete-expired.sql finds them (the oldest, through the published_at index, by ctid; one
-- pass at a time under the table's janitor lock, rows SKIP LOCKED: passes never wait on each other). One
-- statement: the DELETE's RETURNING feeds the INSERT, so whatever fails or is killed, each row is either still in the
-- outbox or in the archive, never both, never neither. status is checked again on the row deleted: a row replayed
-- (set back to PENDING) since the batch was chosen is left alone. The update count is the rows moved.
WITH moved AS (
    DELETE FROM {{outbox.table}}
     WHERE ctid = ANY(ARRAY(
             SELECT ctid
               FROM {{outbox.table}}
              WHERE (SELECT pg_try_advisory_xact_lock(hashtext('{{outbox.table}}_janitor')))
                AND status = 'PUBLISHED'
                AND published_at < now() - CAST(:#${bean:relaySettings.retentionInterval} AS interval)
              ORDER BY published_at
              LIMIT :#${bean:relaySettings.retentionBatchSize}
            FOR UPDATE SKIP LOCKED))
       AND status = 'PUBLISHED'
    RETURNING id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at, status, attempts,
              last_error, next_attempt_at, published_at)
INSERT INTO {{outbox.table}}_archive (id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at,
                                      status, attempts, last_error, next_attempt_at, published_at, partition_number,
                                      archived_at)
SELECT id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at, status, attempts, last_error,
       next_attempt_at, published_at, {{outbox.table}}_partition(aggregate_type, aggregate_id), now()
  FROM moved
