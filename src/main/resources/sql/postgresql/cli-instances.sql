-- The operator's status command: the relay instances registered on the outbox, newest heartbeat first, each with the
-- partitions it owns under a live lease and the events it had in flight at its last heartbeat. An instance that
-- stopped gracefully has removed itself; a killed one stays until another instance's heartbeat finds it stale. The
-- partitions as a JSON array (text), as on MariaDB.
SELECT i.instance_id,
       extract(epoch FROM now() - i.heartbeat_at) AS heartbeat_age_seconds,
       i.in_flight,
       coalesce(p.partitions, '[]') AS partitions
  FROM {{outbox.table}}_instances i
  LEFT JOIN LATERAL (
        SELECT CAST(json_agg(partition_number ORDER BY partition_number) AS text) AS partitions
          FROM {{outbox.table}}_partitions
         WHERE owner = i.instance_id
           AND lease_until > now()) p ON true
 ORDER BY i.heartbeat_at DESC, i.instance_id
