-- What the backlog gauges show: pending and failed rows, the age of the oldest pending one, and how many keys are
-- held back (an event being retried, or FAILED when outbox.failed-blocks-key=true, with later events waiting); and the
-- archive's rows as the table statistics estimate them (reltuples of its partitions: no scan of a table that may hold
-- years of events; -1, never analysed yet, counts as 0).
SELECT count(*) FILTER (WHERE o.status = 'PENDING') AS pending,
       count(*) FILTER (WHERE o.status = 'FAILED') AS failed,
       COALESCE(EXTRACT(EPOCH FROM now() - min(o.created_at) FILTER (WHERE o.status = 'PENDING')), 0)
           AS oldest_pending_age_seconds,
       (SELECT count(DISTINCT (h.aggregate_type, h.aggregate_id))
          FROM {{outbox.table}}_held_keys h
          JOIN {{outbox.table}} b ON b.id = h.held_by
         WHERE (b.status = 'PENDING'
                OR (b.status = 'FAILED' AND CAST(:#${bean:relaySettings.failedBlocksKey} AS boolean)))
           AND EXISTS (SELECT 1
                         FROM {{outbox.table}} l
                        WHERE l.aggregate_type = h.aggregate_type
                          AND l.aggregate_id = h.aggregate_id
                          AND l.seq > h.held_by_seq
                          AND l.status = 'PENDING')) AS keys_held_back,
       (SELECT CAST(coalesce(sum(greatest(c.reltuples, 0)), 0) AS bigint)
          FROM pg_inherits i
          JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = to_regclass('{{outbox.table}}_archive')) AS archive_rows_estimate
  FROM {{outbox.table}} o
 WHERE o.status <> 'PUBLISHED'
