-- Wakes the running relays after a replay, in the replay's transaction (delivered at commit): the insert trigger of
-- migration V2 notifies only on INSERT, and the relays LISTEN on the channel named after the table (InsertListener),
-- the parameter here. The payload 'replay' makes them look at their partitions from the start (a replayed event is
-- older than the ones they claimed last).
SELECT pg_notify(?, 'replay')
