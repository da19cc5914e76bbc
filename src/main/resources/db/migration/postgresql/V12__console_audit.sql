-- The audit trail of replays (the console's and the replay command's): one row per replay and per refused attempt.
-- who: the console user or the OS user of the command; selection: the ids or the filter, as JSON; outcome: replayed,
-- or why it was refused.
CREATE TABLE ${table}_audit (
    id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        timestamptz NOT NULL DEFAULT now(),
    who       text        NOT NULL,
    action    text        NOT NULL,
    selection jsonb       NOT NULL,
    count     integer     NOT NULL,
    outcome   text        NOT NULL
);
