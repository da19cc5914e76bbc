-- Why a replay by id was refused: the status of each given id that exists.
SELECT id, status
  FROM {{outbox.table}}
 WHERE id = ANY(CAST(? AS uuid[]))
