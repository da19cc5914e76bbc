-- The operator's status command, run in the same snapshot as backlog-stats.sql (which gives pending, failed, the oldest
-- pending age and the keys held back, as the relay's gauges count them): how the PENDING rows divide, with the claim's
-- own lease test (claim.sql) - leased to a relay now, claimable now, or waiting for their next attempt (backoff) -
-- and how many PUBLISHED rows are kept (this one reads the whole table).
SELECT count(*) FILTER (WHERE status = 'PENDING'
                          AND lease_until >= now()) AS in_flight,
       count(*) FILTER (WHERE status = 'PENDING'
                          AND (lease_until IS NULL OR lease_until < now())
                          AND next_attempt_at <= now()) AS due,
       count(*) FILTER (WHERE status = 'PENDING'
                          AND (lease_until IS NULL OR lease_until < now())
                          AND next_attempt_at > now()) AS backing_off,
       count(*) FILTER (WHERE status = 'PUBLISHED') AS published
  FROM {{outbox.table}}
