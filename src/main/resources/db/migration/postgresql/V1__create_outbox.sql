-- The outbox table. ${table} is the validated outbox.table setting; ${table_name} its unqualified part.
-- Writers insert id (optional), aggregate_type, aggregate_id, event_type, payload, headers (optional) and
-- created_at (defaulted) in their own business transaction; the relay maintains every other column.

-- gen_random_uuid() is built in from PostgreSQL 13; 12 has it in pgcrypto.
DO $$
BEGIN
    IF current_setting('server_version_num')::int < 130000 THEN
        CREATE EXTENSION IF NOT EXISTS pgcrypto;
    END IF;
END
$$;

CREATE TABLE ${table} (
    id              uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    seq             bigint      NOT NULL GENERATED ALWAYS AS IDENTITY,
    aggregate_type  text        NOT NULL,
    aggregate_id    text        NOT NULL,
    event_type      text        NOT NULL,
    payload         jsonb       NOT NULL,
    headers         jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    status          text        NOT NULL DEFAULT 'PENDING'
                    CONSTRAINT ${table_name}_status_check CHECK (status IN ('PENDING', 'PUBLISHED', 'FAILED')),
    attempts        integer     NOT NULL DEFAULT 0,
    last_error      text,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    published_at    timestamptz,
    -- the claim lease: which relay instance holds the row, and until when
    lease_owner     text,
    lease_until     timestamptz
);

-- Serves the claim: pending rows in insertion order.
CREATE INDEX ${table_name}_pending_seq_idx ON ${table} (seq) WHERE status = 'PENDING';

-- Serves the per-key order check: is there an earlier unfinished event of this key?
CREATE INDEX ${table_name}_unfinished_key_idx
    ON ${table} (aggregate_type, aggregate_id, seq) WHERE status <> 'PUBLISHED';
