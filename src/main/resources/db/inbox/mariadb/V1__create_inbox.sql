-- The inbox on MariaDB, as db/inbox/postgresql/V1__create_inbox.sql describes it: one row per message a consumer
-- applied, written in the same transaction as the handler's business change. ${table} is the validated inbox.table
-- setting; ${table_name} its unqualified part.
-- The unique key is a SHA-256 of the consumer and the whole message id (the consumer's length first, so no two pairs
-- meet), computed by the table: not the columns themselves, since an index on text keys only a prefix of it, and a
-- column too short for an id would cut it (silently, where a statement ignores errors or the server is not strict)
-- and two messages would be one. The texts are longtext: nothing is cut. sql/mariadb/inbox-record.sql takes a
-- duplicate key for a duplicate message.
CREATE TABLE ${table} (
    consumer     longtext     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    message_id   longtext     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    -- the CloudEvents source and type of the message, when it carries them (ce_source, ce_type)
    source       longtext     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    type         longtext     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    -- when the statement that recorded it (in the handler's transaction) ran
    received_at  timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    message_key  binary(32)   AS (UNHEX(SHA2(CONCAT(CHAR_LENGTH(consumer), ':', consumer, message_id), 256)))
                              PERSISTENT,
    CONSTRAINT ${table_name}_message_key UNIQUE (message_key),
    -- Serves retention (sql/mariadb/inbox-delete-expired.sql): the oldest rows first.
    INDEX ${table_name}_received_at_idx (received_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
