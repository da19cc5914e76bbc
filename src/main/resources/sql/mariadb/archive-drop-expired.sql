-- outbox.archive.retention: the archive is a plain table on MariaDB, no month partition to drop; its expired rows go in
-- bounded batches instead (archive-delete-expired.sql).
SELECT 0 AS dropped
