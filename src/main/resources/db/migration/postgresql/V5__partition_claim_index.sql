-- Serves the claim: a partition's PENDING events in seq order (an index range scan per owned partition). Built
-- CONCURRENTLY, so writers are not blocked on a large outbox; the seq-only index it replaces is dropped the same way.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table_name}_claim_idx
    ON ${table} (partition_number, seq) WHERE status = 'PENDING';

DROP INDEX CONCURRENTLY IF EXISTS ${table}_pending_seq_idx;
