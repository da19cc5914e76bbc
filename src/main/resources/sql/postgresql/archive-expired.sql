-- Archive mode's retention batch: moves one bounded batch of published rows older than outbox.retention into the
-- archive table, the batch sql/expired-rows.sql chooses (as delete-expired.sql does). One
-- statement: the DELETE's RETURNING feeds the INSERT, so whatever fails or is killed, each row is either still in the
-- outbox or in the archive, never both, never neither. status is checked again on the row deleted: a row replayed
-- (set back to PENDING) since the batch was chosen is left alone. The update count is the rows moved.
WITH moved AS (
    DELETE FROM {{outbox.table}}
     WHERE ctid = ANY(ARRAY({{sql:expired-rows}}))
       AND status = 'PUBLISHED'
    RETURNING id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at, status, attempts,
              last_error, next_attempt_at, published_at)
INSERT INTO {{outbox.table}}_archive (id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at,
                                      status, attempts, last_error, next_attempt_at, published_at, partition_number,
                                      archived_at)
SELECT id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at, status, attempts, last_error,
       next_attempt_at, published_at, {{outbox.table}}_partition(aggregate_type, aggregate_id), now()
  FROM moved
