-- outbox.archive.retention row by row, in bounded batches: nothing to do on PostgreSQL, where the archive's month
-- partitions past it are dropped whole, and the DEFAULT partition's old rows with them (archive-drop-expired.sql): a
-- statement that takes no row. MariaDB's archive is a plain table: its sql/mariadb/archive-delete-expired.sql deletes
-- here.
DELETE FROM {{outbox.table}}_archive WHERE FALSE
