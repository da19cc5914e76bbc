-- The claim (route outbox-claim-events): the next PENDING events of the partitions granted to this claim, at most
-- :perPartition of each, in seq order per partition (an event's partition is computed from its key, migration V9,
-- through the index of V10). Nothing is written: a partition has one owner at a time (its lease in
-- {{outbox.table}}_partitions, re-checked here), and one claim of that owner reading it at a time
-- (claim.PartitionGrants), so the rows need no lease of their own; the mark (mark.sql) is the only write of a
-- published event. An event an earlier claim of this instance still has in flight (sent, not yet marked: its
-- partition was free again once that claim had read it) is skipped: :inFlight. FOR UPDATE SKIP LOCKED steps over rows
-- another transaction is changing right now (a previous owner's mark still running, an operator's replay) instead of
-- waiting for it or sending them twice. An event is skipped while it is not due (backoff) or behind an earlier event
-- of its key that failed and still holds the key (held_keys: PENDING, or FAILED with outbox.failed-blocks-key=true).
-- holds_key: the event itself holds its key (claim.PartitionGrants claims again once it is settled).
-- Parameters: the grant (claim.Grant.parameters: partitions, perPartition, inFlight) and the relay's
-- settings.
SELECT e.id, e.seq, g.partition_number, e.aggregate_type, e.aggregate_id, e.event_type,
       CAST(e.payload AS text) AS payload, CAST(e.headers AS text) AS headers, e.created_at, e.attempts,
       EXISTS (SELECT 1 FROM {{outbox.table}}_held_keys k WHERE k.held_by = e.id) AS holds_key
  FROM unnest(CAST(:#partitions AS integer[])) AS g (partition_number)
  JOIN {{outbox.table}}_partitions p
    ON p.partition_number = g.partition_number
   AND p.owner = :#${bean:relaySettings.instanceId}
   AND p.lease_until > now()
 CROSS JOIN LATERAL (
        SELECT o.*
          FROM {{outbox.table}} o
         WHERE {{outbox.table}}_partition(o.aggregate_type, o.aggregate_id) = g.partition_number
           AND o.status = 'PENDING'
           AND o.next_attempt_at <= now()
           AND o.id <> ALL(CAST(:#inFlight AS uuid[]))
           AND NOT EXISTS (
                 SELECT 1
                   FROM {{outbox.table}}_held_keys h
                   JOIN {{outbox.table}} b ON b.id = h.held_by
                  WHERE h.partition_number = g.partition_number
                    AND h.aggregate_type = o.aggregate_type
                    AND h.aggregate_id = o.aggregate_id
                    AND h.held_by_seq < o.seq
                    AND (b.status = 'PENDING'
                         OR (b.status = 'FAILED' AND :#${bean:relaySettings.failedBlocksKey})))
         ORDER BY o.seq
         LIMIT :#perPartition
           FOR UPDATE SKIP LOCKED) e
