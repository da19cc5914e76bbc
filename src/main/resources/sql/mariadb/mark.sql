-- The mark (route outbox-mark): the events the broker acknowledged become PUBLISHED, one write per event (a join by
-- primary key). Parameter (event.EventBatch.markParameters): ids, a JSON array (sql.JsonArrayParameters).
UPDATE {{outbox.table}} o
  JOIN JSON_TABLE(:#ids, '$[*]' COLUMNS (id varchar(36) PATH '$')) a ON o.id = a.id
   SET o.status = 'PUBLISHED',
       o.published_at = now(6),
       o.last_error = NULL
 WHERE o.status = 'PENDING'
