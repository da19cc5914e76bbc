-- On shutdown, after the batches in flight have finished: gives back every row this instance still holds (claimed
-- by a poll that was never routed), so another instance need not wait for the lease to expire.
UPDATE {{outbox.table}}
   SET lease_owner = NULL,
       lease_until = NULL
 WHERE lease_owner = '{{outbox.instance-id}}'
   AND status = 'PENDING'
