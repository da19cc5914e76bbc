-- Archive mode's retention batch, as sql/postgresql/archive-expired.sql describes it: procedure
-- {{outbox.table}}_archive_expired of migration V1 (one transaction, under GET_LOCK). The update count is the rows
-- moved.
CALL {{outbox.table}}_archive_expired(:#${bean:relaySettings.retentionInterval},
                                      :#${bean:relaySettings.retentionBatchSize})
