-- Each look of the new-events watch (claim.MariadbOutboxWatch, outbox.wake-up=sequence or claim-index): the largest
-- seq of committed rows (the relay's sessions read committed rows only), 0 before the first. One probe of the end of
-- the seq index; a consistent read: no lock, nothing a writer waits on.
SELECT coalesce(max(seq), 0) FROM {{outbox.table}}
