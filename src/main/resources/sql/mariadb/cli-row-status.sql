-- Why a replay by id was refused: the status of each given id that exists. Parameter: the ids, a JSON array
-- (sql.SqlLists), each looked up by primary key.
SELECT o.id, o.status
  FROM JSON_TABLE(?, '$[*]' COLUMNS (id varchar(36) PATH '$')) j
       STRAIGHT_JOIN {{outbox.table}} o ON o.id = j.id
