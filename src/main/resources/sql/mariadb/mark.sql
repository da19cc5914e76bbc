-- The mark (route outbox-mark): the events the broker acknowledged become PUBLISHED, one write per event.
-- Parameter (event.EventBatch.markParameters): ids, which camel-sql's in: prefix expands to one placeholder each (a
-- literal IN list: each id a primary-key lookup). A JSON_TABLE join did the same at ~1.7× the MariaDB time per row
-- (12.0 against 7.2 ms for 440 rows, measured on 10.11 here) and an on-disk temporary table per mark.
UPDATE {{outbox.table}}
   SET status = 'PUBLISHED',
       published_at = now(6),
       last_error = NULL
 WHERE id IN (:#in:ids)
   AND status = 'PENDING'
