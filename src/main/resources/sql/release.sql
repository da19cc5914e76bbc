-- Gives claimed events back unsent, without counting an attempt: the broker was down (not the events' fault), or the
-- instance stops, or an earlier event of their key failed before they were sent. 1: uuid[] the events.
UPDATE {{outbox.table}}
   SET lease_owner = NULL,
       lease_until = NULL
 WHERE id = ANY(CAST(? AS uuid[]))
   AND lease_owner = '{{outbox.instance-id}}'
   AND status = 'PENDING'
