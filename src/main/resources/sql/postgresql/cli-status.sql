-- The operator's status command, run in the same snapshot as backlog-stats.sql (which gives pending, failed, the oldest
-- pending age and the keys held back, as the relay's gauges count them): how the PENDING rows divide - due now, or
-- waiting for their next attempt (backoff) - and how many of the due ones the live relays had claimed at their last
-- heartbeat (a claim writes nothing on the rows: each relay reports its own); how many PUBLISHED rows are kept (this
-- one reads the whole table); the partitions, and how many have no owner under a live lease now (cli-instances.sql
-- lists the owners).
SELECT count(*) FILTER (WHERE status = 'PENDING'
                          AND next_attempt_at <= now()) AS due,
       count(*) FILTER (WHERE status = 'PENDING'
                          AND next_attempt_at > now()) AS backing_off,
       count(*) FILTER (WHERE status = 'PUBLISHED') AS published,
       (SELECT coalesce(sum(i.in_flight), 0)
          FROM {{outbox.table}}_instances i
         WHERE EXISTS (SELECT 1 FROM {{outbox.table}}_partitions p
                        WHERE p.owner = i.instance_id AND p.lease_until > now())) AS in_flight,
       (SELECT count(*) FROM {{outbox.table}}_partitions) AS partitions,
       (SELECT count(*) FROM {{outbox.table}}_partitions
         WHERE owner IS NULL OR lease_until <= now()) AS unowned_partitions
  FROM {{outbox.table}}
