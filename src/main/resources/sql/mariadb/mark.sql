-- The mark (route outbox-mark): the events the broker acknowledged become PUBLISHED, one write per event.
-- Parameter (event.EventBatch.markParameters): ids, a JSON array (sql.JsonArrayParameters). STRAIGHT_JOIN: each id
-- is looked up by primary key; the optimizer's other plan for a small outbox scans it, and its locking read waits for
-- every row an open writer has just inserted.
UPDATE JSON_TABLE(:#ids, '$[*]' COLUMNS (id varchar(36) PATH '$')) a
       STRAIGHT_JOIN {{outbox.table}} o ON o.id = a.id
   SET o.status = 'PUBLISHED',
       o.published_at = now(6),
       o.last_error = NULL
 WHERE o.status = 'PENDING'
