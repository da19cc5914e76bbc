-- Writers' INSERTs run no relay trigger at all: the partition is computed from the key (V9, V10), so the trigger
-- that stored it, and the column, go. The column's index (V5) is dropped with it. ALTER TABLE ... DROP COLUMN changes
-- the catalogue only (no rewrite); it waits for the transactions in progress on the table, briefly.
DROP TRIGGER IF EXISTS ${table_name}_partition ON ${table};
DROP FUNCTION IF EXISTS ${table}_set_partition();
ALTER TABLE ${table} DROP COLUMN IF EXISTS partition_number;
