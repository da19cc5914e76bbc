-- While new events are unsettled (claim.MariadbOutboxWatch): InnoDB's running transactions, other than this session's,
-- that changed rows (any table: InnoDB does not say which), by id. When one of those that was open after the new events
-- is gone, it has committed or rolled back: its events are visible now. Reads InnoDB's copy of its transaction list
-- (refreshed at most every 100 ms): no lock a writer waits on.
SELECT CAST(trx_id AS char)
  FROM information_schema.INNODB_TRX
 WHERE trx_rows_modified > 0
   AND trx_mysql_thread_id <> CONNECTION_ID()
