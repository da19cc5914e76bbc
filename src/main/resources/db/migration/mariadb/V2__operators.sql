-- What the operator commands and the console need on MariaDB (sql/mariadb/cli-*.sql, audit-*.sql, console-*.sql).
-- ${table} is the validated outbox.table setting, ${table_name} its unqualified part.

-- The audit trail of replays (the console's and the replay command's), as PostgreSQL's V12 has it: one row per replay
-- and per refused attempt. who: the console user or the OS user of the command; selection: the ids or the filter, as
-- JSON (kept as written); outcome: replayed, or why it was refused.
CREATE TABLE ${table}_audit (
    id        bigint       NOT NULL AUTO_INCREMENT PRIMARY KEY,
    `at`      timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    who       text         NOT NULL,
    action    text         NOT NULL,
    selection json         NOT NULL,
    `count`   int          NOT NULL,
    outcome   text         NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- How many replays woke the relays: a replay changes rows but inserts none, so the largest committed seq the relays
-- watch (sql/mariadb/watch-sequence.sql) would not move; the watch adds this counter, which a replay increments in its
-- transaction (sql/mariadb/cli-wake-relays.sql). One row, read by its primary key.
CREATE TABLE ${table}_replays (
    id      tinyint NOT NULL PRIMARY KEY,
    replays bigint  NOT NULL,
    CONSTRAINT ${table_name}_replays_one_row CHECK (id = 1)
) ENGINE = InnoDB;

INSERT INTO ${table}_replays (id, replays) VALUES (1, 0);

DELIMITER $$

-- The replay (sql/mariadb/cli-replay.sql; what sql/postgresql/cli-replay.sql does with UPDATE ... RETURNING): the
-- FAILED rows among the ids (a JSON array, when by_id), or of one key (when by_key), or every FAILED row, become
-- PENDING with attempts 0, due now; PENDING and PUBLISHED rows are never touched. In the caller's transaction (a dry
-- run rolls it back). The rows are locked first, then changed, then returned in seq order. By id: each id looked up
-- by primary key (STRAIGHT_JOIN); otherwise the FAILED rows only, through the (status, published_at) index: a locking
-- scan of the outbox would wait for every row a writer has just inserted.
CREATE PROCEDURE ${table}_replay(IN ids json, IN by_id boolean, IN key_type varchar(255), IN by_key boolean,
                                 IN key_id varchar(255))
BEGIN
    CREATE TEMPORARY TABLE IF NOT EXISTS ${table_name}_replayed (id uuid PRIMARY KEY);
    DELETE FROM ${table_name}_replayed;
    IF by_id THEN
        INSERT IGNORE INTO ${table_name}_replayed (id)
        SELECT o.id
          FROM JSON_TABLE(ids, '$[*]' COLUMNS (id varchar(36) PATH '$')) j
               STRAIGHT_JOIN ${table} o ON o.id = j.id
         WHERE o.status = 'FAILED'
           FOR UPDATE;
    ELSE
        INSERT INTO ${table_name}_replayed (id)
        SELECT o.id
          FROM ${table} o FORCE INDEX (${table_name}_published_at_idx)
         WHERE o.status = 'FAILED'
           AND (NOT by_key OR (o.aggregate_type = key_type AND o.aggregate_id = key_id))
           FOR UPDATE;
    END IF;
    UPDATE ${table_name}_replayed r
           STRAIGHT_JOIN ${table} o ON o.id = r.id
       SET o.status = 'PENDING',
           o.attempts = 0,
           o.next_attempt_at = now(6)
     WHERE o.status = 'FAILED';
    SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type
      FROM ${table_name}_replayed r
           STRAIGHT_JOIN ${table} o ON o.id = r.id
     ORDER BY o.seq;
END$$

DELIMITER ;
