-- Replays FAILED rows (the operator's replay and the console's), as sql/postgresql/cli-replay.sql describes it:
-- procedure {{outbox.table}}_replay of migration V2 (MariaDB has no UPDATE ... RETURNING). Parameters bound as for
-- PostgreSQL: 1-2 the ids (a JSON array, sql.SqlLists) or NULL, 3-4 the aggregate type or NULL, 5 the aggregate id;
-- the second of each pair tells the procedure which selector is given. Returns the replayed rows in seq order. One
-- transaction with cli-wake-relays.sql.
CALL {{outbox.table}}_replay(?, ? IS NOT NULL, ?, ? IS NOT NULL, ?)
