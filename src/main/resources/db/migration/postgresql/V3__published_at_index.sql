-- Serves retention (sql/delete-expired.sql): published rows in published_at order, so each janitor batch reads the
-- oldest rows of the index instead of scanning the table. Built CONCURRENTLY, so writers are not blocked while it is
-- built on an existing outbox (Flyway runs this migration outside a transaction; SchemaMigration turns off its
-- transactional lock, which CREATE INDEX CONCURRENTLY would otherwise wait for).
CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table_name}_published_at_idx
    ON ${table} (published_at) WHERE status = 'PUBLISHED';
