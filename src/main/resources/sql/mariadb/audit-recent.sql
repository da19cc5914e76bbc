-- The latest entries of the replay audit trail, newest first, at most a limit.
SELECT `at`, who, action, selection, `count`, outcome
  FROM {{outbox.table}}_audit
 ORDER BY id DESC
 LIMIT ?
