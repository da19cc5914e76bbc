-- While new events are unsettled (claim.MariadbOutboxWatch): InnoDB's running transactions that changed rows (any
-- table: InnoDB does not say which), by id, and this session's own, run in a transaction of its own so that it is
-- listed. INNODB_TRX is InnoDB's copy of its transaction list, refreshed only when nobody read it for 100 ms: the
-- copy is fresh when it shows this very statement (its parameter, a marker of this look, is in trx_query). When one
-- of the writers that were open after the new events is gone, it has committed or rolled back: its events are
-- visible now. No lock a writer waits on.   1: text the look's marker
SELECT CAST(trx_id AS char), trx_mysql_thread_id = CONNECTION_ID(), trx_query
  FROM information_schema.INNODB_TRX
 WHERE (trx_rows_modified > 0 OR trx_mysql_thread_id = CONNECTION_ID())
   AND ? IS NOT NULL
