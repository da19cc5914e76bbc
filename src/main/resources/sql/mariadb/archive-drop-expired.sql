-- outbox.archive.retention: archived rows older than it are deleted (procedure {{outbox.table}}_archive_drop_expired
-- of migration V1; no month partitions on MariaDB: returns 0 partitions dropped); an empty setting keeps them.
CALL {{outbox.table}}_archive_drop_expired(:#${bean:relaySettings.archiveRetentionInterval})
