-- Gives claimed rows back without counting an attempt: rows not sent because an earlier event of their key failed in
-- this batch, or because the broker was down (not the events' fault).
UPDATE {{outbox.table}}
   SET lease_owner = NULL,
       lease_until = NULL
 WHERE id = ANY(CAST(:#${body.released} AS uuid[]))
   AND lease_owner = '{{outbox.instance-id}}'
