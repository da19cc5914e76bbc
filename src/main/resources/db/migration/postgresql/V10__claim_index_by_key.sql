-- Serves the claim: a partition's PENDING events in seq order, the partition computed from the key (V9). Built
-- CONCURRENTLY, so writers are not blocked on a large outbox. The index on the stored partition_number goes with that
-- column (V11); the index on unfinished events by key served no statement any more, and every INSERT paid for it.
CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table_name}_claim_key_idx
    ON ${table} ((${table}_partition(aggregate_type, aggregate_id)), seq) WHERE status = 'PENDING';

DROP INDEX CONCURRENTLY IF EXISTS ${table}_unfinished_key_idx;
