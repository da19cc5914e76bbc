-- The claim of V4 (sql/mariadb/claim.sql) reads the events in seq order along one index, where V4 read a subquery
-- per granted partition (UNION ALL, prepared per claim). Measured on 10.11 here:
-- - A claim that finds a few events (one-event transactions from several writers) cost ~5 ms of MariaDB time over 32
--   partitions, the partitions' subqueries, parsed and run one by one, whether they held an event or not; the
--   writers' commit rate beside the relay was 0.51-0.70x that beside the plain relay (bench/run --db mariadb).
-- - The held-keys tests ran for every row read, twice: NOT EXISTS in the choice (~6 µs a row) and holds_key in the
--   lock (~3.5 µs a row), though a held key is rare.
-- Now:
-- 1. The choice walks index ${table_name}_pending_idx (status, seq, partition_number) from the oldest PENDING event,
--    keeping those of the granted partitions (tested in the index), at most per_partition times their number: the
--    oldest events of those partitions first, as one range read, one snapshot (a writer's transaction whole or not
--    at all; V4's first point). It replaces the claim index (partition_number, status, seq), used by nothing else.
-- 2. The held-keys tests run only when a granted partition has a held key. Read first, in its own statement: a key
--    held since then was in flight at the grant (only this instance's claims hold keys in its partitions), and
--    claim.PartitionGrants.read holds back the events of every key in flight at the grant.
-- 3. The chosen events are locked by seq (UNIQUE) in seq order, FOR UPDATE SKIP LOCKED, still PENDING, where V4
--    locked them by id and sorted them, payloads and all. Per key the order is the same.
ALTER TABLE ${table} DROP INDEX ${table_name}_claim_idx,
                     ADD INDEX ${table_name}_pending_idx (status, seq, partition_number);

DELIMITER $$

DROP PROCEDURE IF EXISTS ${table}_claim$$

CREATE PROCEDURE ${table}_claim(IN granted json, IN per_partition int, IN in_flight json, IN me varchar(255),
                                IN failed_blocks_key boolean)
BEGIN
    DECLARE owned mediumtext;
    DECLARE owned_count int;
    DECLARE any_held boolean;
    DECLARE skipped mediumtext;
    IF @@SESSION.group_concat_max_len < 16777216 THEN
        SET SESSION group_concat_max_len = 16777216;
    END IF;
    SELECT GROUP_CONCAT(g.p), COUNT(*),
           MAX(EXISTS (SELECT 1 FROM ${table}_held_keys k WHERE k.partition_number = g.p))
      INTO owned, owned_count, any_held
      FROM JSON_TABLE(granted, '$[*]' COLUMNS (p int PATH '$')) g
      JOIN ${table}_partitions x ON x.partition_number = g.p
     WHERE x.owner = me
       AND x.lease_until > now(6);
    SELECT GROUP_CONCAT(QUOTE(i.id))
      INTO skipped
      FROM JSON_TABLE(in_flight, '$[*]' COLUMNS (id varchar(36) PATH '$[1]')) i;
    SET @${table_name}_chosen = NULL;
    IF owned IS NOT NULL THEN
        -- FORCE INDEX: read through the seq index instead, each row's partition would be a primary-key lookup
        SET @${table_name}_claim = CONCAT(
            'SELECT GROUP_CONCAT(c.seq) INTO @${table_name}_chosen FROM (SELECT e.seq FROM ${table} e ',
            'FORCE INDEX (${table_name}_pending_idx) WHERE e.status = ''PENDING'' ',
            'AND e.partition_number IN (', owned, ') AND e.next_attempt_at <= now(6) ',
            IFNULL(CONCAT('AND e.id NOT IN (', skipped, ') '), ''),
            IF(any_held, CONCAT(
                'AND NOT EXISTS (SELECT 1 FROM ${table}_held_keys h JOIN ${table} b ON b.id = h.held_by ',
                'WHERE h.partition_number = e.partition_number AND h.aggregate_type = e.aggregate_type ',
                'AND h.aggregate_id = e.aggregate_id AND h.held_by_seq < e.seq ',
                'AND (b.status = ''PENDING'' OR (b.status = ''FAILED'' AND ',
                IF(failed_blocks_key, 'TRUE', 'FALSE'), '))) '), ''),
            'ORDER BY e.seq LIMIT ', per_partition * owned_count, ') c');
        PREPARE claim_statement FROM @${table_name}_claim;
        EXECUTE claim_statement;
        DEALLOCATE PREPARE claim_statement;
    END IF;
    -- no event chosen: IN (NULL), an empty result of the same columns. FORCE INDEX: the optimizer's other plan reads
    -- every PENDING row through the claim index, and its locking read, however brief, makes another claim's SKIP
    -- LOCKED step over a key's earlier event and take its later one (KafkaPublishTest's order test caught it)
    SET @${table_name}_claim = CONCAT(
        'SELECT e.id, e.seq, e.partition_number, e.aggregate_type, e.aggregate_id, e.event_type, e.payload, ',
        'e.headers, e.created_at, e.attempts, ',
        IF(any_held, 'EXISTS (SELECT 1 FROM ${table}_held_keys k WHERE k.held_by = e.id)', 'FALSE'), ' AS holds_key ',
        'FROM ${table} e FORCE INDEX (seq) WHERE e.seq IN (', IFNULL(@${table_name}_chosen, 'NULL'), ') ',
        'AND e.status = ''PENDING'' ',
        'ORDER BY e.seq FOR UPDATE SKIP LOCKED');
    PREPARE claim_statement FROM @${table_name}_claim;
    EXECUTE claim_statement;
    DEALLOCATE PREPARE claim_statement;
END$$

DELIMITER ;
