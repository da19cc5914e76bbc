-- The insert notification carries the lowest seq its INSERT statement wrote. seq is taken at INSERT, visible at
-- commit: a transaction that commits after a later-numbered one (a long business transaction beside short ones)
-- brings events below what the relay claimed already in their partitions. The relay reads its partitions again from
-- that seq (claim.OutboxConsumer) instead of finding them only at its next rescan (outbox.poll-delay-ms later).
CREATE OR REPLACE FUNCTION ${table}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('${table}', coalesce((SELECT CAST(min(seq) AS text) FROM inserted), ''));
    RETURN NULL;
END
$$;

DROP TRIGGER ${table_name}_notify ON ${table};

CREATE TRIGGER ${table_name}_notify
    AFTER INSERT ON ${table}
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION ${table}_notify();
