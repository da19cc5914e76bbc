-- Wakes the running relays after a replay, in the replay's transaction: a replay inserts nothing, so it moves the
-- outbox's seq sequence by one itself (the relays watch it, claim.NewEventsWatch; a skipped value is harmless) and
-- notifies the channel named after the table (relays with outbox.wake-up=notify LISTEN there, delivered at commit).
SELECT nextval(pg_get_serial_sequence('{{outbox.table}}', 'seq')), pg_notify('{{outbox.table}}', 'replay')
