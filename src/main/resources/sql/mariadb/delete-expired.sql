-- Deletes one bounded batch of published rows older than outbox.retention, oldest first, one pass at a time across
-- the relays (procedure {{outbox.table}}_delete_expired of migration V3, under GET_LOCK). The update count is the
-- rows deleted.
CALL {{outbox.table}}_delete_expired(:#${bean:relaySettings.retentionInterval},
                                     :#${bean:relaySettings.retentionBatchSize})
