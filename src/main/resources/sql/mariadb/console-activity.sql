-- The console's summary, the rest, as sql/postgresql/console-activity.sql describes it: events published in the last
-- minute (the (status, published_at) index), and the partitions with their owner and lease expiry as a JSON array
-- (owner NULL: free; the expiry in ISO-8601, UTC: the relay's sessions run in UTC).
SELECT (SELECT count(*)
          FROM {{outbox.table}}
         WHERE status = 'PUBLISHED'
           AND published_at > now(6) - INTERVAL 1 MINUTE) AS published_last_minute,
       (SELECT coalesce(JSON_ARRAYAGG(JSON_OBJECT('partition', partition_number,
                                                  'owner', IF(lease_until > now(6), owner, NULL),
                                                  'leaseUntil', DATE_FORMAT(lease_until, '%Y-%m-%dT%H:%i:%s.%f+00:00'))
                                      ORDER BY partition_number), '[]')
          FROM {{outbox.table}}_partitions) AS partitions
