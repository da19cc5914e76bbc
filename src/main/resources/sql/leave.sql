-- On shutdown, after the events in flight were marked or given back: gives up every partition of this instance at
-- once (the others take them at their next heartbeat, not after the lease) and removes it from the instances.
-- A partition with an event still unanswered is kept until its lease runs out: its next owner must not send the
-- key's later events first.   1: integer[] partitions with events still in flight
WITH given_up AS (
    UPDATE {{outbox.table}}_partitions
       SET owner = NULL, lease_until = NULL, owner_since = NULL, epoch = epoch + 1
     WHERE owner = '{{outbox.instance-id}}'
       AND partition_number <> ALL(CAST(? AS integer[]))
    RETURNING partition_number
)
DELETE FROM {{outbox.table}}_instances
 WHERE instance_id = '{{outbox.instance-id}}'
