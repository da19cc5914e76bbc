-- Records a message in the inbox, inside the transaction that runs its handler (routes/inbox.camel.yaml). No row
-- inserted (CamelSqlUpdateCount 0) means the consumer applied this ce_id before: the message is a duplicate.
INSERT IGNORE INTO {{inbox.table}} (consumer, message_id, source, type)
VALUES (:#${exchangeProperty.inboxConsumer}, :#${header.ce_id}, :#${header.ce_source}, :#${header.ce_type})
