-- Each look of the new-events watch (outbox.wake-up=sequence): the last seq handed out, committed or not (0 before the
-- first). Reads the sequence only: no table, no lock the writers take part in.   1: oid the sequence
SELECT coalesce(pg_sequence_last_value(CAST(? AS oid)), 0)
