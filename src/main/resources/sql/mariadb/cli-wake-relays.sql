-- Wakes the running relays after a replay, in the replay's transaction: a replay inserts nothing, so the largest
-- committed seq the relays watch would not move; it increments the replay counter the watch adds to it
-- (sql/mariadb/watch-sequence.sql, claim.MariadbOutboxWatch), seen at the commit.
UPDATE {{outbox.table}}_replays SET replays = replays + 1 WHERE id = 1
