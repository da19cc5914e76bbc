-- While new events are unsettled (claim.NewEventsWatch): the transactions, other than this session's, that hold the
-- lock every writer of the outbox takes from its INSERT to its end (RowExclusiveLock on the table). When one of those
-- that held it after the new events is gone, it has committed or rolled back: its events are visible now. Reads the
-- lock manager's view: takes no lock a writer waits on, and runs only while something is unsettled.
-- 1: oid the outbox table
SELECT virtualtransaction
  FROM pg_locks
 WHERE locktype = 'relation'
   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND relation = CAST(? AS oid)
   AND mode = 'RowExclusiveLock'
   AND granted
   AND pid <> pg_backend_pid()
