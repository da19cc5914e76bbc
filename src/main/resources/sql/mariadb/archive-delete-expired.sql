-- outbox.archive.retention on MariaDB: one bounded batch of the rows archived before it, oldest first (procedure
-- {{outbox.table}}_archive_delete_expired of migration V3, under the janitor's lock); an empty setting (keep) deletes
-- nothing. The update count is the rows deleted.
CALL {{outbox.table}}_archive_delete_expired(:#${bean:relaySettings.archiveRetentionInterval},
                                             :#${bean:relaySettings.retentionBatchSize})
