-- Gives a claimed row back without counting an attempt (the broker was down, not the event at fault).
UPDATE {{outbox.table}}
   SET lease_owner = NULL,
       lease_until = NULL
 WHERE id = CAST(:#${exchangeProperty.outboxId} AS uuid)
   AND lease_owner = '{{outbox.instance-id}}'
