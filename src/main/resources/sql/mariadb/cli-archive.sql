-- The status command's archive figures, as sql/postgresql/cli-archive.sql describes them: the archive's rows, counted
-- exactly while InnoDB's statistics put it under a million rows (information_schema.TABLES), their estimate above;
-- the oldest archived row (one probe of the archived_at index).
SELECT CASE WHEN e.estimate < 1000000 THEN (SELECT count(*) FROM {{outbox.table}}_archive) ELSE e.estimate END
           AS archived,
       e.estimate < 1000000 AS archived_exact,
       o.oldest AS oldest_archived_at,
       timestampdiff(MICROSECOND, o.oldest, now(6)) / 1000000 AS oldest_archived_age_seconds
  FROM (SELECT coalesce(max(table_rows), 0) AS estimate
          FROM information_schema.TABLES
         WHERE concat(table_schema, '.', table_name) = '{{outbox.table}}_archive'
            OR (table_schema = DATABASE() AND table_name = '{{outbox.table}}_archive')) e
 CROSS JOIN (SELECT min(archived_at) AS oldest FROM {{outbox.table}}_archive) o
