-- The outbox on MariaDB 10.7+ (contract §2, "The same table on MariaDB"): the table, the relay's own tables, and the
-- procedures that stand in for what MariaDB's SQL lacks (UPDATE ... RETURNING, arrays, LATERAL). ${table} is the
-- validated outbox.table setting, ${table_name} its unqualified part, ${partitions} outbox.partitions.
-- Key columns use a binary, no-pad collation: the default (utf8mb4_general_ci) makes 'K-1', 'k-1' and 'k-1 ' one key
-- in SQL while the broker keeps them apart. JSON is LONGTEXT with a JSON_VALID check: the payload is kept, and
-- published, byte for byte as written. uuid() makes version-1 UUIDs; writers may supply their own (any version).
-- partition_number is stored (computed at INSERT from the key: the writers' statement is the same as on PostgreSQL);
-- the claim index (partition_number, status, seq) matches the claim's WHERE and ORDER BY, so FOR UPDATE SKIP LOCKED
-- locks the rows it returns and no others.
CREATE TABLE ${table} (
    id               uuid         NOT NULL DEFAULT uuid() PRIMARY KEY,
    seq              bigint       NOT NULL AUTO_INCREMENT UNIQUE,
    aggregate_type   varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    aggregate_id     varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    event_type       varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    payload          json         NOT NULL,
    headers          json         NULL,
    created_at       timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    status           varchar(9)   CHARACTER SET ascii NOT NULL DEFAULT 'PENDING',
    attempts         int          NOT NULL DEFAULT 0,
    last_error       text         NULL,
    next_attempt_at  timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    published_at     timestamp(6) NULL,
    partition_number int AS (mod(crc32(concat(aggregate_type, '/', aggregate_id)), ${partitions})) PERSISTENT,
    CONSTRAINT ${table_name}_status_check CHECK (status IN ('PENDING', 'PUBLISHED', 'FAILED')),
    INDEX ${table_name}_claim_idx (partition_number, status, seq),
    INDEX ${table_name}_published_at_idx (status, published_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE ${table}_instances (
    instance_id  varchar(255) NOT NULL PRIMARY KEY,
    started_at   timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    heartbeat_at timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    in_flight    int          NOT NULL DEFAULT 0
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

CREATE TABLE ${table}_partitions (
    partition_number int          NOT NULL PRIMARY KEY,
    owner            varchar(255) NULL,
    lease_until      timestamp(6) NULL,
    owner_since      timestamp(6) NULL,
    epoch            bigint       NOT NULL DEFAULT 0
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

INSERT INTO ${table}_partitions (partition_number)
WITH RECURSIVE n AS (SELECT 0 AS p UNION ALL SELECT p + 1 FROM n WHERE p + 1 < ${partitions})
SELECT p FROM n;

CREATE TABLE ${table}_held_keys (
    held_by          uuid         NOT NULL PRIMARY KEY,
    held_by_seq      bigint       NOT NULL,
    partition_number int          NOT NULL,
    aggregate_type   varchar(255) NOT NULL,
    aggregate_id     varchar(255) NOT NULL,
    held_since       timestamp(6) NOT NULL DEFAULT current_timestamp(6),
    INDEX ${table_name}_held_keys_key_idx (partition_number, aggregate_type, aggregate_id, held_by_seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

-- The archive: every column of the outbox plus archived_at; a plain table on MariaDB (no month partitions).
CREATE TABLE ${table}_archive (
    id               uuid         NOT NULL,
    seq              bigint       NOT NULL,
    aggregate_type   varchar(255) NOT NULL,
    aggregate_id     varchar(255) NOT NULL,
    event_type       varchar(255) NOT NULL,
    payload          json         NOT NULL,
    headers          json         NULL,
    created_at       timestamp(6) NOT NULL,
    status           varchar(9)   CHARACTER SET ascii NOT NULL,
    attempts         int          NOT NULL,
    last_error       text         NULL,
    next_attempt_at  timestamp(6) NOT NULL,
    published_at     timestamp(6) NULL,
    partition_number int          NULL,
    archived_at      timestamp(6) NOT NULL,
    INDEX ${table_name}_archive_archived_at_idx (archived_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_nopad_bin;

DELIMITER $$

-- The relay's durations are ISO-8601 text (java.time.Duration: PT1S, PT0.5S, PT168H); MariaDB has no interval type.
CREATE FUNCTION ${table}_micros(iso varchar(64)) RETURNS bigint DETERMINISTIC
RETURN ROUND(1000000 * (
      3600 * COALESCE(CAST(NULLIF(REGEXP_SUBSTR(REGEXP_SUBSTR(iso, '[0-9.]+H'), '[0-9.]+'), '') AS decimal(30, 9)), 0)
    + 60 * COALESCE(CAST(NULLIF(REGEXP_SUBSTR(REGEXP_SUBSTR(iso, '[0-9.]+M'), '[0-9.]+'), '') AS decimal(30, 9)), 0)
    + COALESCE(CAST(NULLIF(REGEXP_SUBSTR(REGEXP_SUBSTR(iso, '[0-9.]+S'), '[0-9.]+'), '') AS decimal(30, 9)), 0)))$$

-- The claim (sql/mariadb/claim.sql; what sql/postgresql/claim.sql does with LATERAL): for each granted partition this
-- instance owns under a live lease, its next PENDING, due events not in flight and not held back by an earlier event
-- of their key, at most per_partition, in seq order, FOR UPDATE SKIP LOCKED. One SELECT per partition (the index
-- range of the claim index), UNION ALL, prepared here because the partition count varies. Writes nothing.
CREATE PROCEDURE ${table}_claim(IN granted json, IN per_partition int, IN in_flight json, IN me varchar(255),
                                IN failed_blocks_key boolean)
BEGIN
    DECLARE parts mediumtext;
    SET @${table_name}_in_flight = in_flight;
    SELECT GROUP_CONCAT(CONCAT(
               '(SELECT e.id, e.seq, e.partition_number, e.aggregate_type, e.aggregate_id, e.event_type, ',
               'e.payload, e.headers, e.created_at, e.attempts, ',
               'EXISTS (SELECT 1 FROM ${table}_held_keys k WHERE k.held_by = e.id) AS holds_key ',
               'FROM ${table} e WHERE e.partition_number = ', g.p, ' AND e.status = ''PENDING'' ',
               'AND e.next_attempt_at <= now(6) ',
               'AND e.id NOT IN (SELECT f.id FROM JSON_TABLE(@${table_name}_in_flight, ''$[*]'' ',
               'COLUMNS (id varchar(36) PATH ''$'')) f) ',
               'AND NOT EXISTS (SELECT 1 FROM ${table}_held_keys h JOIN ${table} b ON b.id = h.held_by ',
               'WHERE h.partition_number = e.partition_number AND h.aggregate_type = e.aggregate_type ',
               'AND h.aggregate_id = e.aggregate_id AND h.held_by_seq < e.seq ',
               'AND (b.status = ''PENDING'' OR (b.status = ''FAILED'' AND ', IF(failed_blocks_key, 'TRUE', 'FALSE'),
               '))) ORDER BY e.seq LIMIT ', per_partition, ' FOR UPDATE SKIP LOCKED)')
               SEPARATOR ' UNION ALL ')
      INTO parts
      FROM JSON_TABLE(granted, '$[*]' COLUMNS (p int PATH '$')) g
      JOIN ${table}_partitions x ON x.partition_number = g.p
     WHERE x.owner = me
       AND x.lease_until > now(6);
    IF parts IS NULL THEN
        SELECT e.id, e.seq, e.partition_number, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, e.headers,
               e.created_at, e.attempts, FALSE AS holds_key
          FROM ${table} e
         WHERE FALSE;
    ELSE
        SET @${table_name}_claim = parts;
        PREPARE claim_statement FROM @${table_name}_claim;
        EXECUTE claim_statement;
        DEALLOCATE PREPARE claim_statement;
    END IF;
END$$

-- One failed attempt (sql/mariadb/record-failure.sql; sql/postgresql/record-failure.sql says what and why). SET runs
-- left to right on MariaDB: every assignment reads attempts before it is incremented, last. Returns the row's status,
-- or no row when the failure was not written.
CREATE PROCEDURE ${table}_record_failure(IN event_id uuid, IN error text, IN unpublishable boolean,
                                         IN max_attempts int, IN me varchar(255), IN backoff_initial varchar(64),
                                         IN backoff_max varchar(64))
BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;
    START TRANSACTION;
    UPDATE ${table} o
       SET o.last_error = error,
           o.status = CASE WHEN unpublishable OR o.attempts + 1 >= max_attempts THEN 'FAILED' ELSE 'PENDING' END,
           o.next_attempt_at = now(6) + INTERVAL LEAST(${table}_micros(backoff_max),
                                                       ${table}_micros(backoff_initial)
                                                           * POW(2, LEAST(o.attempts, 30))) MICROSECOND,
           o.attempts = o.attempts + 1
     WHERE o.id = event_id
       AND o.status = 'PENDING'
       AND EXISTS (SELECT 1
                     FROM ${table}_partitions p
                    WHERE p.partition_number = o.partition_number
                      AND p.owner = me
                      AND p.lease_until > now(6));
    IF ROW_COUNT() > 0 THEN
        INSERT IGNORE INTO ${table}_held_keys (held_by, held_by_seq, partition_number, aggregate_type, aggregate_id)
        SELECT id, seq, partition_number, aggregate_type, aggregate_id FROM ${table} WHERE id = event_id;
        SELECT status FROM ${table} WHERE id = event_id;
    ELSE
        SELECT status FROM ${table} WHERE FALSE;
    END IF;
    COMMIT;
END$$

-- The heartbeat (sql/mariadb/heartbeat.sql; sql/postgresql/heartbeat.sql says what and why): this instance is alive,
-- keeps its leases, takes the lowest free partitions up to its share or gives up its highest ones beyond it (those
-- in drained). One transaction. Returns the partitions this instance owns afterwards.
CREATE PROCEDURE ${table}_heartbeat(IN me varchar(255), IN partition_count int, IN stale_after varchar(64),
                                    IN lease varchar(64), IN in_flight int, IN drained json)
BEGIN
    DECLARE instances int;
    DECLARE rank_of_me int;
    DECLARE share int;
    DECLARE owned int;
    DECLARE wanted int;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;
    CREATE TEMPORARY TABLE IF NOT EXISTS ${table_name}_heartbeat_plan (
        partition_number int PRIMARY KEY, taken boolean NOT NULL, giving_up boolean NOT NULL,
        given_up boolean NOT NULL);
    DELETE FROM ${table_name}_heartbeat_plan;
    -- before the transaction, holding no lock: the scan of the instances may wait for another instance's heartbeat,
    -- which never waits for this one's (two instances each holding their own row and scanning for the other's
    -- would deadlock)
    DELETE FROM ${table}_instances
     WHERE heartbeat_at < now(6) - INTERVAL 10 * ${table}_micros(stale_after) MICROSECOND
       AND instance_id <> me;
    START TRANSACTION;
    INSERT INTO ${table}_instances (instance_id, heartbeat_at, in_flight)
    VALUES (me, now(6), in_flight)
    ON DUPLICATE KEY UPDATE heartbeat_at = now(6), in_flight = VALUES(in_flight);
    SELECT count(*), coalesce(sum(instance_id < me), 0)
      INTO instances, rank_of_me
      FROM ${table}_instances
     WHERE heartbeat_at > now(6) - INTERVAL ${table}_micros(stale_after) MICROSECOND
        OR instance_id = me;
    SET share = partition_count DIV instances + IF(rank_of_me < partition_count MOD instances, 1, 0);
    SELECT count(*) INTO owned FROM ${table}_partitions WHERE owner = me;
    SET wanted = GREATEST(0, share - owned);
    INSERT INTO ${table_name}_heartbeat_plan (partition_number, taken, giving_up, given_up)
    SELECT m.partition_number, FALSE, m.surplus,
           m.surplus AND m.partition_number IN (SELECT d.p FROM JSON_TABLE(drained, '$[*]' COLUMNS (p int PATH '$')) d)
      FROM (SELECT partition_number,
                   ROW_NUMBER() OVER (ORDER BY partition_number DESC) <= owned - share AS surplus
              FROM ${table}_partitions
             WHERE owner = me) m;
    INSERT INTO ${table_name}_heartbeat_plan (partition_number, taken, giving_up, given_up)
    SELECT partition_number, TRUE, FALSE, FALSE
      FROM ${table}_partitions
     WHERE (owner IS NULL OR lease_until < now(6))
       AND (owner IS NULL OR owner <> me)
     ORDER BY partition_number
     LIMIT wanted
       FOR UPDATE SKIP LOCKED;
    -- the plan's partitions only, each by primary key (STRAIGHT_JOIN): a scan of the partitions would wait for the
    -- rows another instance's heartbeat holds
    UPDATE ${table_name}_heartbeat_plan x
           STRAIGHT_JOIN ${table}_partitions p ON p.partition_number = x.partition_number
       SET p.owner_since = CASE WHEN x.taken THEN now(6) WHEN x.given_up THEN NULL ELSE p.owner_since END,
           p.epoch = p.epoch + IF(x.taken OR x.given_up, 1, 0),
           p.lease_until = IF(x.given_up, NULL, now(6) + INTERVAL ${table}_micros(lease) MICROSECOND),
           p.owner = IF(x.given_up, NULL, me)
     WHERE x.taken OR p.owner = me;
    SELECT x.partition_number, x.taken, x.giving_up, instances AS live_instances
      FROM ${table_name}_heartbeat_plan x
      JOIN ${table}_partitions p ON p.partition_number = x.partition_number
     WHERE NOT x.given_up
       AND p.owner = me
     ORDER BY x.partition_number;
    COMMIT;
END$$

-- On shutdown (sql/mariadb/leave.sql): gives up this instance's partitions but those with a claim in progress
-- (busy), and removes the instance (leaving: this instance again, as sql/postgresql/leave.sql takes it).
CREATE PROCEDURE ${table}_leave(IN me varchar(255), IN busy json, IN leaving varchar(255))
BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        RESIGNAL;
    END;
    START TRANSACTION;
    UPDATE ${table}_partitions
       SET owner = NULL, lease_until = NULL, owner_since = NULL, epoch = epoch + 1
     WHERE owner = me
       AND partition_number NOT IN (SELECT b.p FROM JSON_TABLE(busy, '$[*]' COLUMNS (p int PATH '$')) b);
    DELETE FROM ${table}_instances WHERE instance_id = leaving;
    COMMIT;
END$$

-- Retention (sql/mariadb/delete-expired.sql): one bounded batch of the oldest PUBLISHED rows past retention, one pass
-- at a time across the relays (GET_LOCK, tried, never waited for: a pass that does not get it deletes nothing).
-- Its update count (MariaDB's affected rows of a CALL: those of its last row change) is the rows deleted.
CREATE PROCEDURE ${table}_delete_expired(IN retention varchar(64), IN batch int)
BEGIN
    IF GET_LOCK('${table}_janitor', 0) = 1 THEN
        DELETE FROM ${table}
         WHERE status = 'PUBLISHED'
           AND published_at < now(6) - INTERVAL ${table}_micros(retention) MICROSECOND
         ORDER BY published_at
         LIMIT batch;
        DO RELEASE_LOCK('${table}_janitor');
    END IF;
END$$

-- Archive mode's batch (sql/mariadb/archive-expired.sql): the same batch moved to the archive in one transaction,
-- under the same lock. Its update count is the rows moved (deleted from the outbox, the last row change).
CREATE PROCEDURE ${table}_archive_expired(IN retention varchar(64), IN batch int)
BEGIN
    DECLARE EXIT HANDLER FOR SQLEXCEPTION
    BEGIN
        ROLLBACK;
        DO RELEASE_LOCK('${table}_janitor');
        RESIGNAL;
    END;
    IF GET_LOCK('${table}_janitor', 0) = 1 THEN
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
        COMMIT;
        DO RELEASE_LOCK('${table}_janitor');
    END IF;
END$$

-- outbox.archive.retention (sql/mariadb/archive-drop-expired.sql): the archive has no month partitions on MariaDB, so
-- archived rows older than the retention are deleted row-wise; none when it is empty (keep). Returns the partitions
-- dropped: none.
CREATE PROCEDURE ${table}_archive_drop_expired(IN retention varchar(64))
BEGIN
    IF retention <> '' THEN
        DELETE FROM ${table}_archive WHERE archived_at < now(6) - INTERVAL ${table}_micros(retention) MICROSECOND;
    END IF;
    SELECT 0 AS dropped;
END$$

DELIMITER ;
