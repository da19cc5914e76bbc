-- Archive mode's retention batch, as sql/postgresql/archive-expired.sql describes it: procedure
-- {{outbox.table}}_archive_expired of migration V3 (one transaction, one janitor at a time under GET_LOCK). It answers
-- the rows moved as one row (the update count of a CALL adds up every row change inside it); the retention route's
-- bounded batches read that as the statement's count.
CALL {{outbox.table}}_archive_expired(:#${bean:relaySettings.retentionInterval},
                                      :#${bean:relaySettings.retentionBatchSize})
