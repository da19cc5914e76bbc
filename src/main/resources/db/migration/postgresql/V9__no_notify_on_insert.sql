-- The writers pay nothing (contract §2): an outbox INSERT no longer notifies. PostgreSQL takes one cluster-wide lock
-- at the commit of every transaction that called NOTIFY and holds it through the commit's WAL flush (async.c,
-- PreCommit_Notify), so every outbox-writing commit waited for every other one: measured, writers reached 0.2-0.5 of
-- their rate. The relays find new events by watching the outbox's seq sequence instead (claim.NewEventsWatch;
-- outbox.wake-up=notify listens for notifications from a trigger the user installs, docs/ordering-and-guarantees.md).
DROP TRIGGER IF EXISTS ${table_name}_notify ON ${table};
DROP FUNCTION IF EXISTS ${table}_notify();

-- An event's partition, computed from its key instead of stored by a per-row trigger (a PL/pgSQL call per INSERT
-- cost the writers 13% of their rate). SQL and IMMUTABLE, so PostgreSQL inlines it into the claim index's expression
-- (V10) and into the statements that ask for it; the partition count is fixed here, as it was in the trigger. The
-- same hash as ${table}_partition_of (V4), written out with built-in functions only: an index expression must not
-- depend on the search_path (maintenance runs with a restricted one).
CREATE FUNCTION ${table}_partition(aggregate_type text, aggregate_id text) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT mod(('x' || substr(md5(aggregate_type || '/' || aggregate_id), 1, 7))::bit(28)::integer, ${partitions}) $$;
