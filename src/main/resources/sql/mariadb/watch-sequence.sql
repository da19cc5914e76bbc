-- Each look of the new-events watch (claim.MariadbOutboxWatch, outbox.wake-up=sequence or claim-index): the largest
-- seq of committed rows (the relay's sessions read committed rows only), 0 before the first, plus the replays
-- committed so far (migration V2: a replay inserts nothing, it moves the counter). One probe of the end of the seq
-- index and one primary-key row; consistent reads: no lock, nothing a writer waits on.
SELECT coalesce(max(seq), 0) + (SELECT r.replays FROM {{outbox.table}}_replays r WHERE r.id = 1)
  FROM {{outbox.table}}
