-- Partitioned claiming. Every event belongs to one of ${partitions} partitions, a hash of its key, and every
-- partition is owned by at most one relay instance at a time (${table}_partitions): the owner claims the partition's
-- events in seq order, so a key's events are never with two instances and a claim never looks for "an earlier
-- unfinished event of this key". Writers' INSERTs do not change: a trigger fills partition_number.
-- Runs in one transaction; ALTER TABLE holds writers back until it commits (the backfill covers unfinished rows only).

-- The partition of a key: the first 28 bits of its md5, modulo the partition count. md5 is stable across PostgreSQL
-- versions (unlike hashtext), so a key keeps its partition after a server upgrade.
CREATE FUNCTION ${table}_partition_of(aggregate_type text, aggregate_id text, partitions integer) RETURNS integer
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT mod(('x' || substr(md5(aggregate_type || '/' || aggregate_id), 1, 7))::bit(28)::integer, partitions) $$;

ALTER TABLE ${table} ADD COLUMN partition_number integer;

-- The partition count lives in the trigger; the relay checks it against outbox.partitions at start.
CREATE FUNCTION ${table}_set_partition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.partition_number := ${table}_partition_of(NEW.aggregate_type, NEW.aggregate_id, ${partitions});
    RETURN NEW;
END
$$;

CREATE TRIGGER ${table_name}_partition
    BEFORE INSERT ON ${table}
    FOR EACH ROW EXECUTE FUNCTION ${table}_set_partition();

UPDATE ${table}
   SET partition_number = ${table}_partition_of(aggregate_type, aggregate_id, ${partitions})
 WHERE status <> 'PUBLISHED';

-- Relay instances: each registers and heartbeats; one that stops heartbeating counts as gone after
-- outbox.instance.stale-after.
CREATE TABLE ${table}_instances (
    instance_id  text        PRIMARY KEY,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    -- what it had sent and not yet marked at its last heartbeat (for the status command)
    in_flight    integer     NOT NULL DEFAULT 0
);

-- Partition ownership: an owner holds a partition while its lease lasts (renewed by every heartbeat). A partition
-- changes owner only once it is free: given up by its owner (after its events in flight were marked or given back)
-- or its lease expired. epoch counts the changes.
CREATE TABLE ${table}_partitions (
    partition_number integer     PRIMARY KEY,
    owner            text,
    lease_until      timestamptz,
    owner_since      timestamptz,
    epoch            bigint      NOT NULL DEFAULT 0
);
INSERT INTO ${table}_partitions (partition_number) SELECT generate_series(0, ${partitions} - 1);

-- Keys held back: a row per event whose attempt failed, written when the failure is recorded. Later events of the
-- key are not claimed while that event is still PENDING (or FAILED, with outbox.failed-blocks-key=true); once it is
-- published, given up or deleted, its row no longer holds anything and is cleaned up.
CREATE TABLE ${table}_held_keys (
    held_by          uuid        PRIMARY KEY,
    held_by_seq      bigint      NOT NULL,
    partition_number integer     NOT NULL,
    aggregate_type   text        NOT NULL,
    aggregate_id     text        NOT NULL,
    held_since       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ${table_name}_held_keys_key_idx
    ON ${table}_held_keys (partition_number, aggregate_type, aggregate_id, held_by_seq);

-- Events that failed before this migration hold their keys too.
INSERT INTO ${table}_held_keys (held_by, held_by_seq, partition_number, aggregate_type, aggregate_id)
SELECT id, seq, partition_number, aggregate_type, aggregate_id
  FROM ${table}
 WHERE (status = 'PENDING' AND attempts > 0) OR status = 'FAILED';
