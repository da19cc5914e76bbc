-- The console's summary, the rest: events published in the last minute (the published_at index), and the partitions
-- with their owner and lease expiry as a JSON array (owner NULL: free).
SELECT (SELECT count(*)
          FROM {{outbox.table}}
         WHERE status = 'PUBLISHED'
           AND published_at > now() - interval '1 minute') AS published_last_minute,
       (SELECT CAST(coalesce(json_agg(json_build_object('partition', partition_number,
                                                         'owner', CASE WHEN lease_until > now() THEN owner END,
                                                         'leaseUntil', lease_until)
                                      ORDER BY partition_number), '[]') AS text)
          FROM {{outbox.table}}_partitions) AS partitions
