-- Wakes the relays as soon as events are committed: one notification per INSERT statement on channel '${table}'
-- (PostgreSQL delivers it at commit, and folds identical notifications of one transaction into one). The relays
-- still poll every outbox.poll-delay-ms, so a lost notification costs at most one poll interval.
CREATE OR REPLACE FUNCTION ${table}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('${table}', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER ${table_name}_notify
    AFTER INSERT ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION ${table}_notify();
