-- What the backlog gauges show, as sql/postgresql/backlog-stats.sql describes it; the archive's rows as InnoDB's
-- statistics estimate them (information_schema.TABLES; 0 for a schema-qualified outbox.table).
SELECT coalesce(sum(o.status = 'PENDING'), 0) AS pending,
       coalesce(sum(o.status = 'FAILED'), 0) AS failed,
       coalesce(timestampdiff(MICROSECOND, min(IF(o.status = 'PENDING', o.created_at, NULL)), now(6)) / 1000000, 0)
           AS oldest_pending_age_seconds,
       (SELECT count(DISTINCT h.aggregate_type, h.aggregate_id)
          FROM {{outbox.table}}_held_keys h
          JOIN {{outbox.table}} b ON b.id = h.held_by
         WHERE (b.status = 'PENDING'
                OR (b.status = 'FAILED' AND :#${bean:relaySettings.failedBlocksKey}))
           AND EXISTS (SELECT 1
                         FROM {{outbox.table}} l
                        WHERE l.aggregate_type = h.aggregate_type
                          AND l.aggregate_id = h.aggregate_id
                          AND l.seq > h.held_by_seq
                          AND l.status = 'PENDING')) AS keys_held_back,
       coalesce((SELECT table_rows
                   FROM information_schema.TABLES
                  WHERE table_schema = DATABASE()
                    AND table_name = '{{outbox.table}}_archive'), 0) AS archive_rows_estimate
  FROM {{outbox.table}} o
 WHERE o.status <> 'PUBLISHED'
