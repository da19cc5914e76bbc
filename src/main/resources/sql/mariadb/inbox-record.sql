-- Records a message in the inbox, inside the transaction that runs its handler (routes/inbox.camel.yaml). No row
-- inserted (CamelSqlUpdateCount 0) means the consumer applied this ce_id before: the message is a duplicate. The
-- table's unique key (db/inbox/mariadb/V1__create_inbox.sql: a SHA-256 of consumer and the whole id, computed by the
-- table) finds it, and only that error (1062, duplicate key) is taken for one: not INSERT IGNORE, which would make
-- every error a warning. A copy being recorded by another transaction waits for it: dropped once that one commits,
-- recorded if it rolls back (as ON CONFLICT DO NOTHING does on PostgreSQL). One compound statement, run by camel-sql
-- inside the transaction; its update count is the row inserted, or none.
BEGIN NOT ATOMIC
    DECLARE CONTINUE HANDLER FOR 1062 BEGIN END;
    INSERT INTO {{inbox.table}} (consumer, message_id, source, type)
    VALUES (:#${exchangeProperty.inboxConsumer}, :#${header.ce_id}, :#${header.ce_source}, :#${header.ce_type});
END
