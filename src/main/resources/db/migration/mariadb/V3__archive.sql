-- Retention's janitor on MariaDB, archive mode and outbox.archive.retention included (V1's procedures, replaced).
-- One janitor at a time per outbox: GET_LOCK is server-wide, so its name is the outbox's database and table (V1's
-- '${table}_janitor' made two databases' outboxes of the same name wait for each other's pass).

DELIMITER $$

-- The janitor's lock: one name per outbox on the server. A stored routine runs in its own database, which is the
-- outbox's (its name is qualified as the table's).
CREATE FUNCTION ${table}_janitor_lock() RETURNS varchar(200) DETERMINISTIC
RETURN CONCAT(DATABASE(), '.${table_name}_janitor')$$

-- Retention (sql/mariadb/delete-expired.sql): one bounded batch of the oldest PUBLISHED rows past retention, one pass
-- at a time across the relays (GET_LOCK, tried, never waited for: a pass that does not get it deletes nothing).
-- Its update count (the affected rows of a CALL add up every row change inside it: here the DELETE's alone) is the
-- rows deleted.
CREATE OR REPLACE PROCEDURE ${table}_delete_expired(IN retention varchar(64), IN batch int)
BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        DO RELEASE_LOCK(${table}_janitor_lock());
        RESIGNAL;
    END;
    IF GET_LOCK(${table}_janitor_lock(), 0) = 1 THEN
        DELETE FROM ${table}
         WHERE status = 'PUBLISHED'
           AND published_at < now(6) - INTERVAL ${table}_micros(retention) MICROSECOND
         ORDER BY published_at
         LIMIT batch;
        DO RELEASE_LOCK(${table}_janitor_lock());
    END IF;
END$$

-- Archive mode's batch (sql/mariadb/archive-expired.sql): the oldest PUBLISHED rows past retention, at most batch,
-- copied to the archive and deleted from the outbox in ONE transaction, under the janitor's lock: whatever fails or
-- is killed, each row is in exactly one of the two tables. The rows are locked FOR UPDATE SKIP LOCKED as they are
-- chosen (through the (status, published_at) index), so a replay (back to PENDING) cannot slip in between. Answers
-- the rows moved as one row, 'archived': the update count of a CALL would be the sum of its row changes (the batch's
-- list, the archive's INSERT, the outbox's DELETE: three times the rows moved).
CREATE OR REPLACE PROCEDURE ${table}_archive_expired(IN retention varchar(64), IN batch int)
BEGIN
    DECLARE moved int DEFAULT 0;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        DO RELEASE_LOCK(${table}_janitor_lock());
        RESIGNAL;
    END;
    IF GET_LOCK(${table}_janitor_lock(), 0) = 1 THEN
        CREATE TEMPORARY TABLE IF NOT EXISTS ${table_name}_archive_batch (id uuid PRIMARY KEY);
        DELETE FROM ${table_name}_archive_batch;
        START TRANSACTION;
        INSERT INTO ${table_name}_archive_batch (id)
        SELECT id
          FROM ${table}
         WHERE status = 'PUBLISHED'
           AND published_at < now(6) - INTERVAL ${table}_micros(retention) MICROSECOND
         ORDER BY published_at
         LIMIT batch
           FOR UPDATE SKIP LOCKED;
        INSERT INTO ${table}_archive (id, seq, aggregate_type, aggregate_id, event_type, payload, headers, created_at,
                                      status, attempts, last_error, next_attempt_at, published_at, partition_number,
                                      archived_at)
        SELECT o.id, o.seq, o.aggregate_type, o.aggregate_id, o.event_type, o.payload, o.headers, o.created_at,
               o.status, o.attempts, o.last_error, o.next_attempt_at, o.published_at, o.partition_number, now(6)
          FROM ${table} o
          JOIN ${table_name}_archive_batch b ON b.id = o.id;
        DELETE o FROM ${table} o JOIN ${table_name}_archive_batch b ON b.id = o.id;
        SET moved = ROW_COUNT();
        COMMIT;
        DO RELEASE_LOCK(${table}_janitor_lock());
    END IF;
    SELECT moved AS archived;
END$$

-- outbox.archive.retention (sql/mariadb/archive-delete-expired.sql): the archive is a plain table on MariaDB (no month
-- partitions to drop), so one bounded batch of the oldest rows archived before now - retention is deleted, through the
-- archived_at index, under the janitor's lock; none when the retention is empty (keep). Its update count is the rows
-- deleted.
CREATE PROCEDURE ${table}_archive_delete_expired(IN retention varchar(64), IN batch int)
BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        DO RELEASE_LOCK(${table}_janitor_lock());
        RESIGNAL;
    END;
    IF retention <> '' THEN
        IF GET_LOCK(${table}_janitor_lock(), 0) = 1 THEN
            DELETE FROM ${table}_archive
             WHERE archived_at < now(6) - INTERVAL ${table}_micros(retention) MICROSECOND
             ORDER BY archived_at
             LIMIT batch;
            DO RELEASE_LOCK(${table}_janitor_lock());
        END IF;
    END IF;
END$$

-- V1's, which deleted every expired archived row in one statement: replaced by the bounded batches above
DROP PROCEDURE IF EXISTS ${table}_archive_drop_expired$$

DELIMITER ;
