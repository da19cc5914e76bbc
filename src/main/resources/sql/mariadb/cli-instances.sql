-- The operator's status command (and the console's summary), as sql/postgresql/cli-instances.sql describes it: the
-- relay instances, newest heartbeat first, each with the partitions it owns under a live lease (a JSON array) and the
-- events it had in flight at its last heartbeat.
SELECT i.instance_id,
       timestampdiff(MICROSECOND, i.heartbeat_at, now(6)) / 1000000 AS heartbeat_age_seconds,
       i.in_flight,
       coalesce((SELECT JSON_ARRAYAGG(p.partition_number ORDER BY p.partition_number)
                   FROM {{outbox.table}}_partitions p
                  WHERE p.owner = i.instance_id
                    AND p.lease_until > now(6)), '[]') AS partitions
  FROM {{outbox.table}}_instances i
 ORDER BY i.heartbeat_at DESC, i.instance_id
