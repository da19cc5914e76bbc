-- One round trip every outbox.instance.heartbeat (route outbox-heartbeat): this instance says it is alive, keeps
-- the leases of its partitions, and takes or gives up partitions towards an even share.
-- Share: the partition count divided evenly among the live instances (heartbeat within outbox.instance.stale-after;
-- a stopping instance removes itself, sql/leave.sql; one silent for 10 x stale-after, a killed one, is forgotten
-- here), the first instances by id taking one more. An instance above its share gives up its highest
-- partitions in two steps: one heartbeat says which (giving_up: no claim is granted them any more), a later one
-- gives up those that drained (no claim of them in progress). One below its share takes the lowest free ones: never
-- owned, given up, or with an expired lease. FOR UPDATE SKIP LOCKED, the owner re-checked on the row as it is now,
-- and the lease make sure a partition has one owner at a time. Returns the partitions this instance owns afterwards.
-- Parameters (claim.PartitionGrants.heartbeat): inFlight integer (events claimed and not yet settled, for the status
-- command), drained integer[] (partitions being given up with no claim in progress).
WITH settings AS (
    SELECT CAST(:#${bean:relaySettings.instanceId} AS text) AS me,
           CAST(:#${bean:relaySettings.partitions} AS integer) AS partitions,
           CAST(:#${bean:relaySettings.staleAfterInterval} AS interval) AS stale_after,
           CAST(:#${bean:relaySettings.leaseInterval} AS interval) AS lease
), me AS (
    INSERT INTO {{outbox.table}}_instances AS i (instance_id, heartbeat_at, in_flight)
    SELECT (SELECT me FROM settings), now(), CAST(:#inFlight AS integer)
    ON CONFLICT (instance_id) DO UPDATE
       SET heartbeat_at = now(), in_flight = EXCLUDED.in_flight
    RETURNING i.instance_id
), forgotten AS (
    DELETE FROM {{outbox.table}}_instances
     WHERE heartbeat_at < now() - 10 * (SELECT stale_after FROM settings)
       AND instance_id <> (SELECT me FROM settings)
), live AS (
    -- this instance counts as it is now (the statement's snapshot does not show its own upsert)
    SELECT instance_id
      FROM {{outbox.table}}_instances
     WHERE heartbeat_at > now() - (SELECT stale_after FROM settings)
       AND instance_id <> (SELECT me FROM settings)
    UNION ALL
    SELECT instance_id FROM me
), share AS (
    SELECT coalesce(max(CASE WHEN r.instance_id = (SELECT me FROM settings)
                             THEN (SELECT partitions FROM settings) / r.instances
                                  + CASE WHEN r.rank < (SELECT partitions FROM settings) % r.instances THEN 1 ELSE 0 END
                        END), 0) AS partitions,
           count(*) AS instances
      FROM (SELECT instance_id, row_number() OVER (ORDER BY instance_id) - 1 AS rank, count(*) OVER () AS instances
              FROM live) r
), mine AS (
    SELECT partition_number FROM {{outbox.table}}_partitions WHERE owner = (SELECT me FROM settings)
), surplus AS (
    SELECT partition_number
      FROM mine
     ORDER BY partition_number DESC
     LIMIT greatest(0, (SELECT count(*) FROM mine) - (SELECT partitions FROM share))
), free AS (
    SELECT p.partition_number
      FROM {{outbox.table}}_partitions p
     WHERE (p.owner IS NULL OR p.lease_until < now())
       AND p.owner IS DISTINCT FROM (SELECT me FROM settings)
     ORDER BY p.partition_number
     LIMIT greatest(0, (SELECT partitions FROM share) - (SELECT count(*) FROM mine))
       FOR UPDATE SKIP LOCKED
), plan AS (
    SELECT m.partition_number, false AS taken,
           m.partition_number IN (SELECT partition_number FROM surplus)
               AND m.partition_number = ANY(CAST(:#drained AS integer[])) AS given_up
      FROM mine m
    UNION ALL
    SELECT f.partition_number, true, false FROM free f
), changed AS (
    UPDATE {{outbox.table}}_partitions p
       SET owner = CASE WHEN x.given_up THEN NULL ELSE (SELECT me FROM settings) END,
           lease_until = CASE WHEN x.given_up THEN NULL ELSE now() + (SELECT lease FROM settings) END,
           owner_since = CASE WHEN x.taken THEN now() WHEN x.given_up THEN NULL ELSE p.owner_since END,
           epoch = p.epoch + CASE WHEN x.taken OR x.given_up THEN 1 ELSE 0 END
      FROM plan x
     WHERE p.partition_number = x.partition_number
       -- a partition another instance took meanwhile (this one's lease had expired) stays with it
       AND (x.taken OR p.owner = (SELECT me FROM settings))
    RETURNING p.partition_number, p.owner, x.taken, x.given_up
)
SELECT c.partition_number,
       c.taken,
       c.partition_number IN (SELECT partition_number FROM surplus) AS giving_up,
       (SELECT instances FROM share) AS live_instances
  FROM changed c
 WHERE NOT c.given_up
