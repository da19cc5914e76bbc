-- Claims no longer lease rows: a partition has one owner (its lease in ${table}_partitions) and, in that owner, one
-- claim at a time, so the mark is the only write of a published event. The row lease columns go.
ALTER TABLE ${table} DROP COLUMN IF EXISTS lease_owner;
ALTER TABLE ${table} DROP COLUMN IF EXISTS lease_until;
