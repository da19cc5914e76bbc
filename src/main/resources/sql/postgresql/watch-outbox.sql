-- The new-events watch (claim.NewEventsWatch), once per connection: the object ids of the outbox table and of the
-- sequence behind its seq column (null before the table has one), which its looks take.
-- 1: text the outbox table   2: text the outbox table
SELECT CAST(CAST(? AS regclass) AS oid) AS outbox,
       CAST(CAST(pg_get_serial_sequence(?, 'seq') AS regclass) AS oid) AS sequence
