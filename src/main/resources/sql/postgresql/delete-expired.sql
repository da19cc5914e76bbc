-- Deletes one bounded batch of published rows older than outbox.retention, the batch sql/expired-rows.sql chooses.
-- Every instance runs the janitor, one pass at a time (its janitor lock): three passes at once take as long as one
-- (bench/: janitors).
DELETE FROM {{outbox.table}}
 WHERE ctid = ANY(ARRAY({{sql:expired-rows}}))
