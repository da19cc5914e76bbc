-- Serve the console's list of FAILED events, newest first and keyset-paged by seq, with or without a destination:
-- an index range scan reads one page, however many rows have failed. Partial: only FAILED rows are in them, so the
-- relay's claims and marks do not maintain them. Built CONCURRENTLY (Flyway runs this outside a transaction).
CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table_name}_failed_seq_idx
    ON ${table} (seq) WHERE status = 'FAILED';

CREATE INDEX CONCURRENTLY IF NOT EXISTS ${table_name}_failed_type_seq_idx
    ON ${table} (aggregate_type, seq) WHERE status = 'FAILED';
