-- On shutdown, after the routes stopped (claim.LeaveOnStop): gives up every partition of this instance at once (the
-- others take them at their next heartbeat, not after the lease) and removes it from the instances. A partition with
-- a claim still in progress (the shutdown timeout ran out) is kept until its lease runs out: its next owner must not
-- send the key's later events first.   1: text this instance   2: integer[] partitions with a claim in progress
-- 3: text this instance
WITH given_up AS (
    UPDATE {{outbox.table}}_partitions
       SET owner = NULL, lease_until = NULL, owner_since = NULL, epoch = epoch + 1
     WHERE owner = CAST(? AS text)
       AND partition_number <> ALL(CAST(? AS integer[]))
    RETURNING partition_number
)
DELETE FROM {{outbox.table}}_instances
 WHERE instance_id = CAST(? AS text)
