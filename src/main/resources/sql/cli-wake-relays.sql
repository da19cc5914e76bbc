-- Wakes the running relays after a replay, in the replay's transaction (delivered at commit): the insert trigger of
-- migration V2 notifies only on INSERT, and the relays LISTEN on the channel named after the table (InsertListener),
-- the parameter here.
SELECT pg_notify(?, '')
