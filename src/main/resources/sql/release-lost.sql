-- After a statement of the claim loop failed (the connection broke, the database restarted): gives back the events
-- leased to this instance that it does not know as in flight, without counting an attempt. A claim whose answer was
-- lost, a give-back or a failed attempt that could not be written leave such rows: this instance's own claim never
-- takes a row leased to itself, so nothing else would.   1: uuid[] the events this instance has in flight
-- Read through the claim index: only the pending events of the partitions this instance owns.
UPDATE {{outbox.table}} e
   SET lease_owner = NULL,
       lease_until = NULL
  FROM {{outbox.table}}_partitions p
 WHERE p.owner = '{{outbox.instance-id}}'
   AND e.partition_number = p.partition_number
   AND e.status = 'PENDING'
   AND e.lease_owner = '{{outbox.instance-id}}'
   AND e.id <> ALL(CAST(? AS uuid[]))
