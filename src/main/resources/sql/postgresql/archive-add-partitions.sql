-- Before an archive pass: this month's and next month's archive partitions exist (function of migration V8).
SELECT {{outbox.table}}_archive_add_partitions() AS made
