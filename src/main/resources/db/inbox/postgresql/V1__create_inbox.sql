-- The inbox: one row per message a consumer applied, written in the same transaction as the handler's business
-- change, so a redelivered or re-sent message (same ce_id) finds its row and is dropped. ${table} is the validated
-- inbox.table setting; ${table_name} its unqualified part. Several consumers (the template's 'name') share one
-- table, each with its own message ids: one event can be applied once by each of them.
CREATE TABLE ${table} (
    consumer     text        NOT NULL,
    message_id   text        NOT NULL,
    -- the CloudEvents source and type of the message, when it carries them (ce_source, ce_type)
    source       text,
    type         text,
    -- when the transaction that recorded it (and ran its handler) began
    received_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);

-- Serves retention (sql/inbox-delete-expired.sql): the oldest rows first.
CREATE INDEX ${table_name}_received_at_idx ON ${table} (received_at);
