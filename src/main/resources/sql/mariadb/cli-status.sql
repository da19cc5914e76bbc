-- The operator's status command, as sql/postgresql/cli-status.sql describes it, in the same snapshot as
-- backlog-stats.sql: due now or backing off, the in-flight events the live relays reported, the PUBLISHED rows kept
-- (this one reads the whole table), the partitions and how many have no owner under a live lease.
SELECT coalesce(sum(status = 'PENDING' AND next_attempt_at <= now(6)), 0) AS due,
       coalesce(sum(status = 'PENDING' AND next_attempt_at > now(6)), 0) AS backing_off,
       coalesce(sum(status = 'PUBLISHED'), 0) AS published,
       (SELECT coalesce(sum(i.in_flight), 0)
          FROM {{outbox.table}}_instances i
         WHERE EXISTS (SELECT 1 FROM {{outbox.table}}_partitions p
                        WHERE p.owner = i.instance_id AND p.lease_until > now(6))) AS in_flight,
       (SELECT count(*) FROM {{outbox.table}}_partitions) AS partitions,
       (SELECT count(*) FROM {{outbox.table}}_partitions
         WHERE owner IS NULL OR lease_until <= now(6)) AS unowned_partitions
  FROM {{outbox.table}}
