-- outbox.archive.retention: drops the archive's month partitions entirely older than it (function of migration V8);
-- an empty setting (keep forever) binds NULL, which drops nothing.
SELECT {{outbox.table}}_archive_drop_expired(
           CAST(NULLIF(CAST(:#${bean:relaySettings.archiveRetentionInterval} AS text), '') AS interval)) AS dropped
