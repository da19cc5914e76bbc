-- The status command's archive figures (outbox.retention.mode=archive), in the same snapshot as cli-status.sql: how
-- many rows the archive table holds - counted exactly while the table statistics put it under a million rows, the
-- statistics' estimate (reltuples of its partitions) above, where a count would read the whole archive - and the
-- oldest archived row (the archived_at index: one index probe per partition).
WITH estimate AS (
    SELECT CAST(coalesce(sum(greatest(c.reltuples, 0)), 0) AS bigint) AS rows
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass('{{outbox.table}}_archive'))
SELECT CASE WHEN e.rows < 1000000 THEN (SELECT count(*) FROM {{outbox.table}}_archive) ELSE e.rows END AS archived,
       e.rows < 1000000 AS archived_exact,
       o.archived_at AS oldest_archived_at,
       EXTRACT(EPOCH FROM now() - o.archived_at) AS oldest_archived_age_seconds
  FROM estimate e
  LEFT JOIN (SELECT archived_at FROM {{outbox.table}}_archive ORDER BY archived_at LIMIT 1) o ON true
