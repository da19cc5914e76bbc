-- The console's keys held back per destination, counted as the relay's gauge counts them (backlog-stats.sql), as
-- sql/postgresql/console-held-keys.sql describes it. Parameter: outbox.failed-blocks-key.
SELECT h.aggregate_type, count(DISTINCT h.aggregate_id) AS held_keys
  FROM {{outbox.table}}_held_keys h
  JOIN {{outbox.table}} b ON b.id = h.held_by
 WHERE (b.status = 'PENDING' OR (b.status = 'FAILED' AND ?))
   AND EXISTS (SELECT 1
                 FROM {{outbox.table}} l
                WHERE l.aggregate_type = h.aggregate_type
                  AND l.aggregate_id = h.aggregate_id
                  AND l.seq > h.held_by_seq
                  AND l.status = 'PENDING')
 GROUP BY h.aggregate_type
