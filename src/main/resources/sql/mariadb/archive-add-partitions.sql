-- Before an archive pass: the archive is a plain table on MariaDB (migration V1), no month partition to add.
SELECT 0 AS made
