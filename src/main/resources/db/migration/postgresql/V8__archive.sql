-- The archive (outbox.retention.mode=archive): retention moves published rows past outbox.retention here instead of
-- deleting them (sql/archive-expired.sql, one DELETE ... RETURNING feeding the INSERT per batch, so a row is always
-- in exactly one of the two tables). Created whatever the mode, so switching modes needs no migration.
-- Every column of the outbox, unchanged (seq a plain bigint: its values come from the outbox), plus archived_at.
-- Partitioned by the month of archived_at: rows only ever arrive in the current month's partition (made by the
-- janitor before each run, ${table}_archive_add_partitions), and outbox.archive.retention drops whole months
-- (${table}_archive_drop_expired) instead of deleting rows. The DEFAULT partition only catches rows of a month
-- whose partition is missing; it should stay empty.
CREATE TABLE ${table}_archive (
    id               uuid        NOT NULL,
    seq              bigint      NOT NULL,
    aggregate_type   text        NOT NULL,
    aggregate_id     text        NOT NULL,
    event_type       text        NOT NULL,
    payload          jsonb       NOT NULL,
    headers          jsonb,
    created_at       timestamptz NOT NULL,
    status           text        NOT NULL,
    attempts         integer     NOT NULL,
    last_error       text,
    next_attempt_at  timestamptz NOT NULL,
    published_at     timestamptz,
    partition_number integer,
    archived_at      timestamptz NOT NULL
) PARTITION BY RANGE (archived_at);

CREATE TABLE ${table}_archive_default PARTITION OF ${table}_archive DEFAULT;

-- Serves the oldest archived row (the status command) and time-range queries. Rows arrive in archived_at order, so
-- the index grows at its right edge only: cheap beside the insert itself.
CREATE INDEX ${table_name}_archive_archived_at_idx ON ${table}_archive (archived_at);

-- Makes this month's and next month's partitions (months in UTC), if missing; returns how many it made. Run by the
-- janitor before each archive pass, so a pass that crosses a month boundary still finds its partition. The advisory
-- lock keeps two relays' janitors from racing to create the same partition.
CREATE FUNCTION ${table}_archive_add_partitions() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    first_month timestamptz := date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    month_start timestamptz;
    partition_name text;
    made integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('${table}_archive'));
    FOR i IN 0..1 LOOP
        month_start := first_month + i * interval '1 month';
        partition_name := '${table}_archive_' || to_char(month_start AT TIME ZONE 'UTC', 'YYYY_MM');
        -- a month with rows in the DEFAULT partition (put there by hand) cannot get its partition: its rows stay in
        -- DEFAULT, which still takes them, rather than every archive pass failing
        IF to_regclass(partition_name) IS NULL AND NOT EXISTS (
               SELECT 1 FROM ${table}_archive_default
                WHERE archived_at >= month_start AND archived_at < month_start + interval '1 month') THEN
            EXECUTE format('CREATE TABLE %s PARTITION OF ${table}_archive FOR VALUES FROM (%L) TO (%L)',
                           partition_name, month_start, month_start + interval '1 month');
            made := made + 1;
        END IF;
    END LOOP;
    RETURN made;
END
$$;

-- Drops the month partitions whose every row was archived before now() - retention (a DROP TABLE each: no row-wise
-- delete, no vacuum debt); the month that straddles the cutoff stays whole until it is entirely past it. Rows in the
-- DEFAULT partition (there should be none) are deleted row-wise. NULL retention (keep forever) drops nothing.
-- Returns the number of partitions dropped.
CREATE FUNCTION ${table}_archive_drop_expired(retention interval) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    expired record;
    dropped integer := 0;
BEGIN
    IF retention IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('${table}_archive'));
    FOR expired IN
        SELECT c.oid::regclass AS partition_name
          FROM pg_inherits i
          JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = to_regclass('${table}_archive')
           -- the upper bound of FOR VALUES FROM (...) TO ('...'); NULL for the DEFAULT partition
           AND CAST(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([^'']+)''\)') AS timestamptz)
               <= now() - retention
    LOOP
        EXECUTE format('DROP TABLE %s', expired.partition_name);
        dropped := dropped + 1;
    END LOOP;
    DELETE FROM ${table}_archive_default WHERE archived_at < now() - retention;
    RETURN dropped;
END
$$;

SELECT ${table}_archive_add_partitions();
