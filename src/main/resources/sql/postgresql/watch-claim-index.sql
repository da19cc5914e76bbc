-- Each look of the new-events watch with outbox.wake-up=claim-index: the largest PENDING seq, of committed rows only
-- (read from the claim index).
SELECT coalesce(max(seq), 0) FROM {{outbox.table}} WHERE status = 'PENDING'
