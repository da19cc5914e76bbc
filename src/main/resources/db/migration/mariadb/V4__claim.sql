-- The claim of V1 (sql/mariadb/claim.sql), two changes:
-- 1. Which events, then their locks. V1's one SELECT ... FOR UPDATE SKIP LOCKED per partition was a locking read,
--    and InnoDB's locking reads see each row's latest committed version, not one snapshot: a claim scanning a partition
--    while a writer's transaction of several events commits skipped the rows it met before that commit (still locked)
--    and took the ones it met after, so it could take a key's second event and leave its first to the next claim
--    (CrashIT found it: a backlog written in one transaction while the relay ran). Now a plain read, one snapshot
--    (READ COMMITTED: a transaction whole or not at all), chooses each partition's events, and a second statement
--    locks those rows by primary key, FOR UPDATE SKIP LOCKED, still PENDING, as PostgreSQL's claim does in one.
-- 2. The events in flight are left out by a literal list per partition (e.id NOT IN ('…', '…')), built once per claim
--    from in_flight, now [partition, id] pairs, where V1 tested e.id against JSON_TABLE(@in_flight), a subquery MariaDB
--    evaluated again for every row read: with 300 events in flight ~200 µs of MariaDB CPU per claimed event, against
--    ~12 µs with a literal list. Each list holds its own partition's ids only: the statement grows with the events in
--    flight (at most outbox.batch-size), not with their product with the partitions read.
DELIMITER $$

DROP PROCEDURE IF EXISTS ${table}_claim$$

CREATE PROCEDURE ${table}_claim(IN granted json, IN per_partition int, IN in_flight json, IN me varchar(255),
                                IN failed_blocks_key boolean)
BEGIN
    DECLARE parts mediumtext;
    IF @@SESSION.group_concat_max_len < 16777216 THEN
        SET SESSION group_concat_max_len = 16777216;
    END IF;
    SELECT GROUP_CONCAT(CONCAT(
               '(SELECT e.id FROM ${table} e WHERE e.partition_number = ', g.p, ' AND e.status = ''PENDING'' ',
               'AND e.next_attempt_at <= now(6) ', IFNULL(CONCAT('AND e.id NOT IN (', f.ids, ') '), ''),
               'AND NOT EXISTS (SELECT 1 FROM ${table}_held_keys h JOIN ${table} b ON b.id = h.held_by ',
               'WHERE h.partition_number = e.partition_number AND h.aggregate_type = e.aggregate_type ',
               'AND h.aggregate_id = e.aggregate_id AND h.held_by_seq < e.seq ',
               'AND (b.status = ''PENDING'' OR (b.status = ''FAILED'' AND ', IF(failed_blocks_key, 'TRUE', 'FALSE'),
               '))) ORDER BY e.seq LIMIT ', per_partition, ')')
               SEPARATOR ' UNION ALL ')
      INTO parts
      FROM JSON_TABLE(granted, '$[*]' COLUMNS (p int PATH '$')) g
      JOIN ${table}_partitions x ON x.partition_number = g.p
      LEFT JOIN (SELECT i.p, GROUP_CONCAT(QUOTE(i.id) SEPARATOR ',') AS ids
                   FROM JSON_TABLE(in_flight, '$[*]' COLUMNS (p int PATH '$[0]', id varchar(36) PATH '$[1]')) i
                  GROUP BY i.p) f ON f.p = g.p
     WHERE x.owner = me
       AND x.lease_until > now(6);
    SET @${table_name}_chosen = NULL;
    IF parts IS NOT NULL THEN
        -- one statement, one snapshot: every partition's events chosen at once
        SET @${table_name}_claim = CONCAT('SELECT GROUP_CONCAT(QUOTE(c.id) SEPARATOR '','') ',
                                          'INTO @${table_name}_chosen FROM (', parts, ') c');
        PREPARE claim_statement FROM @${table_name}_claim;
        EXECUTE claim_statement;
        DEALLOCATE PREPARE claim_statement;
    END IF;
    IF @${table_name}_chosen IS NULL THEN
        SELECT e.id, e.seq, e.partition_number, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, e.headers,
               e.created_at, e.attempts, FALSE AS holds_key
          FROM ${table} e
         WHERE FALSE;
    ELSE
        SET @${table_name}_claim = CONCAT(
            'SELECT e.id, e.seq, e.partition_number, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, ',
            'e.headers, e.created_at, e.attempts, ',
            'EXISTS (SELECT 1 FROM ${table}_held_keys k WHERE k.held_by = e.id) AS holds_key ',
            'FROM ${table} e WHERE e.id IN (', @${table_name}_chosen, ') AND e.status = ''PENDING'' ',
            'ORDER BY e.partition_number, e.seq FOR UPDATE SKIP LOCKED');
        PREPARE claim_statement FROM @${table_name}_claim;
        EXECUTE claim_statement;
        DEALLOCATE PREPARE claim_statement;
    END IF;
END$$

DELIMITER ;
