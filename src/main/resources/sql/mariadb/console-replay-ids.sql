-- The events a replay by id from the console names: each one's status and seq (an id not returned does not exist).
-- Parameter: the ids, a JSON array (sql.SqlLists), each looked up by primary key.
SELECT o.id, o.seq, o.status
  FROM JSON_TABLE(?, '$[*]' COLUMNS (id varchar(36) PATH '$')) j
       STRAIGHT_JOIN {{outbox.table}} o ON o.id = j.id
